package datasession

import (
	"encoding/json"
	"time"
)

// paceEvery: at most one pace report per this long.
const paceEvery = time.Second

// presenterPace is relay/presenterPace.ts: what the gateway tells a presenter
// page about its pace (the presenter socket's `pace`): the time it held the
// page back (read it later, past relay.presenterBytesPerSecond) and the bytes
// it read, at most once a second and only after a stretch in which it held
// the page back. The page cannot see that wait itself: TCP's buffers take
// megabytes first. Owned by the page's reader.
type presenterPace struct {
	since time.Time
	held  time.Duration
	bytes int
}

type paceMessage struct {
	Type           string `json:"type"`
	HeldMs         int64  `json:"heldMs"`
	OfMs           int64  `json:"ofMs"`
	BytesPerSecond int64  `json:"bytesPerSecond"`
}

func newPresenterPace(now time.Time) *presenterPace {
	return &presenterPace{since: now}
}

// read counts bytes just read from the page.
func (p *presenterPace) read(bytes int) { p.bytes += bytes }

// wait counts a wait before the page is read again.
func (p *presenterPace) wait(d time.Duration) { p.held += d }

// report is the JSON due now, or nil: none yet (under a second), or nothing held back (the stretch starts again).
func (p *presenterPace) report(now time.Time) []byte {
	of := now.Sub(p.since)
	if of < paceEvery {
		return nil
	}
	ofMs := of.Round(time.Millisecond).Milliseconds()
	heldMs := min(p.held.Round(time.Millisecond).Milliseconds(), ofMs)
	message := paceMessage{Type: "pace", HeldMs: heldMs, OfMs: ofMs, BytesPerSecond: int64(float64(p.bytes) / of.Seconds())}
	p.since, p.held, p.bytes = now, 0, 0
	if heldMs <= 0 {
		return nil
	}
	body, _ := json.Marshal(message)
	return body
}
