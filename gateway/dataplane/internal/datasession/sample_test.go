package datasession

import (
	"fmt"
	"io"
	"log/slog"
	"testing"
)

// The sample's slices carry every granted session once per SampleSlices
// slices, in even shares, and their tallies add up to what was relayed.
func TestSampleSlicesCarryEachSessionOnceAndTheTalliesAddUp(t *testing.T) {
	e := NewEngine(Options{}, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	const sessions = 25
	var relayed uint64
	for i := range sessions {
		s := &session{engine: e, id: fmt.Sprintf("s_%d", i)}
		e.grant(s)
		s.figures.live.bytesToServer.Add(uint64(100 + i))
		relayed += uint64(100 + i)
	}
	for round := range 2 {
		seen := map[string]int{}
		var tallied uint64
		for slot := range SampleSlices {
			sample := e.SampleSlice(slot)
			if n := len(sample.Sessions); n < sessions/SampleSlices || n > sessions/SampleSlices+1 {
				t.Fatalf("round %d slot %d: %d sessions, not an even share", round, slot, n)
			}
			for _, figures := range sample.Sessions {
				seen[figures.SessionID]++
			}
			tallied += sample.Tally.BytesToServer
		}
		if len(seen) != sessions {
			t.Fatalf("round %d: %d sessions sampled of %d", round, len(seen), sessions)
		}
		for id, times := range seen {
			if times != 1 {
				t.Fatalf("round %d: %s sampled %d times", round, id, times)
			}
		}
		want := relayed
		if round == 1 {
			want = 0 // nothing relayed since the first round
		}
		if tallied != want {
			t.Fatalf("round %d: tallies add up to %d, relayed %d", round, tallied, want)
		}
	}
	if whole := e.Sample(); len(whole.Sessions) != sessions {
		t.Fatalf("the whole sample has %d sessions", len(whole.Sessions))
	}
}
