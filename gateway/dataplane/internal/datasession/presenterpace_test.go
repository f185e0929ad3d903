package datasession

import (
	"encoding/json"
	"testing"
	"time"
)

func paceAt(t *testing.T, body []byte) paceMessage {
	t.Helper()
	var message paceMessage
	if err := json.Unmarshal(body, &message); err != nil {
		t.Fatalf("pace report %q: %v", body, err)
	}
	return message
}

func TestAStretchHeldBackIsReportedOnceWithItsHeldTimeAndRate(t *testing.T) {
	start := time.Unix(100, 0)
	pace := newPresenterPace(start)
	pace.read(48_000)
	pace.wait(300 * time.Millisecond)
	if body := pace.report(start.Add(600 * time.Millisecond)); body != nil {
		t.Fatalf("a report before a second: %s", body)
	}
	pace.read(48_000)
	pace.wait(350 * time.Millisecond)
	got := paceAt(t, pace.report(start.Add(1200*time.Millisecond)))
	want := paceMessage{Type: "pace", HeldMs: 650, OfMs: 1200, BytesPerSecond: 80_000}
	if got != want {
		t.Fatalf("report %+v, want %+v", got, want)
	}
	if body := pace.report(start.Add(1300 * time.Millisecond)); body != nil {
		t.Fatalf("the next stretch starts at the report: %s", body)
	}
}

func TestAStretchWithoutHoldingBackSaysNothingAndAWaitIsNeverMoreThanItsStretch(t *testing.T) {
	start := time.Unix(100, 0)
	pace := newPresenterPace(start)
	pace.read(1_000_000)
	if body := pace.report(start.Add(time.Second)); body != nil {
		t.Fatalf("nothing held back, yet: %s", body)
	}
	pace.wait(5 * time.Second)
	got := paceAt(t, pace.report(start.Add(2*time.Second)))
	if got.HeldMs != 1000 || got.OfMs != 1000 || got.BytesPerSecond != 0 {
		t.Fatalf("report %+v: held at most the stretch", got)
	}
}
