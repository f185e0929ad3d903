package rpc

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// contractFile holds the contract's examples, beside its schemas in the
// protocol package (protocol/src/dataPlaneContract.ts, whose test reads the same
// file): each example fits its op's schema there and its Go type here.
const contractFile = "../../../../protocol/contract/dataPlaneContract.json"

// Each of the contract's examples must fit its Go type exactly — no field Go
// does not know, none lost on the way back out.
func TestEveryContractExampleRoundTripsThroughItsGoType(t *testing.T) {
	types := map[string]map[string]func() any{
		"request": {
			"admit": func() any { return &AdmitRequest{} }, "open": func() any { return &OpenRequest{} },
			"present": func() any { return &PresentRequest{} }, "resolve": func() any { return &ResolveRequest{} },
			"certificate": func() any { return &CertificateRequest{} }, "drain": func() any { return &Drain{} },
		},
		"answer": {
			"admit": func() any { return &AdmitAnswer{} }, "open": func() any { return &OpenAnswer{} },
			"present": func() any { return &PresentAnswer{} }, "resolve": func() any { return &ResolveAnswer{} },
			"certificate": func() any { return &CertificateAnswer{} }, "drain": func() any { return &struct{}{} },
		},
		"notice": {
			"phase": func() any { return &Phase{} }, "secured": func() any { return &Secured{} }, "ended": func() any { return &Ended{} },
			"presenter-ended": func() any { return &PresenterEnded{} }, "sample": func() any { return &Sample{} },
			"ready": func() any { return &Ready{} }, "fatal": func() any { return &Fatal{} }, "stop": func() any { return &Stop{} },
			"configure": func() any { return &Configure{} },
			"input":     func() any { return &Input{} },
		},
	}
	raw, err := os.ReadFile(contractFile)
	if err != nil {
		t.Fatal(err)
	}
	var contract map[string]json.RawMessage
	if err := json.Unmarshal(raw, &contract); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for direction, ops := range types {
		var examples map[string][]json.RawMessage
		if err := json.Unmarshal(contract[direction], &examples); err != nil {
			t.Fatalf("%s: %v", direction, err)
		}
		for op := range examples {
			if ops[op] == nil {
				t.Errorf("%s %s: an example of a message Go has no type for", direction, op)
			}
		}
		for op, fresh := range ops {
			if len(examples[op]) == 0 {
				t.Errorf("%s %s: no example", direction, op)
			}
			for i, example := range examples[op] {
				value := fresh()
				decoder := json.NewDecoder(bytes.NewReader(example))
				decoder.DisallowUnknownFields()
				if err := decoder.Decode(value); err != nil {
					t.Errorf("%s %s #%d: %v", direction, op, i, err)
					continue
				}
				back, err := json.Marshal(value)
				if err != nil {
					t.Fatal(err)
				}
				var want, got any
				_ = json.Unmarshal(example, &want)
				_ = json.Unmarshal(back, &got)
				if !reflect.DeepEqual(want, got) {
					t.Errorf("%s %s #%d: Go writes it back as %s", direction, op, i, back)
				}
				checked++
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d examples checked", checked)
	}
}
