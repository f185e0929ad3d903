package pdu

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
)

type inputVector struct {
	Name    string `json:"name"`
	Frame   string `json:"frame"`
	Kept    string `json:"kept"`
	Dropped int    `json:"dropped"`
}

// The vectors protocol/src/inputPdus.test.ts checks the TypeScript gate with.
func TestDropInputVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/input-pdus.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		Cases []inputVector `json:"cases"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors.Cases) < 8 {
		t.Fatalf("only %d vectors", len(vectors.Cases))
	}
	for _, vector := range vectors.Cases {
		t.Run(vector.Name, func(t *testing.T) {
			frame, err := hex.DecodeString(vector.Frame)
			if err != nil {
				t.Fatal(err)
			}
			kept, dropped := DropInput(frame)
			if got := hex.EncodeToString(kept); got != vector.Kept {
				t.Errorf("kept %s, want %s", got, vector.Kept)
			}
			if dropped != vector.Dropped {
				t.Errorf("dropped %d, want %d", dropped, vector.Dropped)
			}
			if vector.Dropped == 0 && len(frame) > 0 && &kept[0] != &frame[0] {
				t.Error("a frame without input was copied")
			}
		})
	}
}
