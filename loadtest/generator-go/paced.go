package main

import (
	"math/rand/v2"

	"lanterna/dataplane/edgeloop"
	"sync"
	"time"
)

// pacedConnection drives one established channel: a request every interval on
// its own timeline (a slot of the pacing wheel: random phase), each response
// timed (loadtest/src/pacedConnection.ts). A reader goroutine per connection
// waits in the runtime's poller; sending is the wheel's.
type pacedConnection struct {
	channel echoChannel
	gen     *generator
	// send times of unanswered requests, oldest first (guarded by gen.mu)
	sendTimes []int64
	head      int
	alive     bool
}

func newPacedConnection(channel echoChannel, gen *generator) *pacedConnection {
	return &pacedConnection{channel: channel, gen: gen, alive: true, sendTimes: make([]int64, 0, 16)}
}

// loopedChannel: a channel read by the generator's event loop (direct)
// instead of a reader goroutine.
type loopedChannel interface {
	attach(loop *edgeloop.Loop, onResponses func(count int) error, onFailure func(err error))
}

func (p *pacedConnection) start(wheel *pacingWheel, loop *edgeloop.Loop) {
	wheel.add(p)
	if looped, ok := p.channel.(loopedChannel); ok && loop != nil {
		looped.attach(loop, p.responses, p.failed)
		return
	}
	go p.read()
}

// sendDue sends one request due at `due`; false once the connection is gone.
func (p *pacedConnection) sendDue(due time.Time) bool {
	g := p.gen
	g.mu.Lock()
	if !p.alive {
		g.mu.Unlock()
		return false
	}
	// the time is taken under the lock so that no response can be matched before it is noted
	now := time.Now()
	g.recordLateness(now.Sub(due))
	p.sendTimes = append(p.sendTimes, g.monotonicNs(now))
	g.counters.sent++
	g.mu.Unlock()
	if err := p.channel.send(); err != nil {
		// closing may wait on the peer: not on the wheel's goroutine
		go p.failed(err)
		return false
	}
	return true
}

func (p *pacedConnection) read() {
	p.failed(p.channel.readResponses(p.responses))
}

// responses times `count` responses that just arrived against the oldest requests.
func (p *pacedConnection) responses(count int) error {
	g := p.gen
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.monotonicNs(time.Now())
	g.counters.received += int64(count)
	for range count {
		if p.head >= len(p.sendTimes) {
			return &kioskError{"relay", "response without an outstanding request"}
		}
		g.recordRoundTrip(now - p.sendTimes[p.head])
		p.head++
	}
	if p.head == len(p.sendTimes) {
		p.sendTimes, p.head = p.sendTimes[:0], 0
	} else if p.head > 1024 && p.head*2 > len(p.sendTimes) {
		p.sendTimes = append(p.sendTimes[:0], p.sendTimes[p.head:]...)
		p.head = 0
	}
	return nil
}

// failed counts a broken channel once; a deliberate close is not a failure.
func (p *pacedConnection) failed(err error) {
	g := p.gen
	g.mu.Lock()
	if !p.alive {
		g.mu.Unlock()
		return
	}
	p.alive = false
	g.counters.failures++
	message := err.Error()
	g.counters.lastFailure = &message
	g.mu.Unlock()
	p.channel.close()
}

func (p *pacedConnection) close() {
	p.gen.mu.Lock()
	p.alive = false
	p.gen.mu.Unlock()
	p.channel.close()
}

// outstanding and oldest: called with gen.mu held.
func (p *pacedConnection) outstanding() int { return len(p.sendTimes) - p.head }

func (p *pacedConnection) oldestOutstandingNs(now int64) int64 {
	if p.head >= len(p.sendTimes) {
		return 0
	}
	return now - p.sendTimes[p.head]
}

// pacingWheel sends every connection's request once per interval from one
// goroutine: the interval is cut into ticks, each connection sits in one
// tick's slot (its phase), and each tick the slot's requests go out. One
// wake-up per tick instead of a timer and a goroutine switch per request.
// Ticks missed in a stall are sent once, late; a whole missed interval is
// skipped, not caught up (as the Node generator's timers).
type pacingWheel struct {
	mu    sync.Mutex
	tick  time.Duration
	slots [][]*pacedConnection
	count int
	// wakes the wheel when its first connection arrives
	wake  chan struct{}
	epoch time.Time
}

const wheelTick = time.Millisecond

func newPacingWheel(interval time.Duration) *pacingWheel {
	slots := max(1, int(interval/wheelTick))
	w := &pacingWheel{tick: interval / time.Duration(slots), slots: make([][]*pacedConnection, slots), wake: make(chan struct{}, 1), epoch: time.Now()}
	go w.run()
	return w
}

func (w *pacingWheel) add(p *pacedConnection) {
	w.mu.Lock()
	slot := rand.IntN(len(w.slots))
	w.slots[slot] = append(w.slots[slot], p)
	w.count++
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *pacingWheel) run() {
	next := int64(0)
	for {
		w.mu.Lock()
		empty := w.count == 0
		w.mu.Unlock()
		if empty {
			<-w.wake
		}
		due := int64(time.Since(w.epoch) / w.tick)
		if due-next >= int64(len(w.slots)) {
			next = due - int64(len(w.slots)) + 1
		}
		for ; next <= due; next++ {
			w.fire(int(next%int64(len(w.slots))), w.epoch.Add(time.Duration(next)*w.tick))
		}
		if wait := time.Until(w.epoch.Add(time.Duration(next) * w.tick)); wait > 0 {
			time.Sleep(wait)
		}
	}
}

func (w *pacingWheel) fire(slot int, due time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	connections := w.slots[slot]
	kept := connections[:0]
	for _, p := range connections {
		if p.sendDue(due) {
			kept = append(kept, p)
		}
	}
	clear(connections[len(kept):])
	w.count -= len(connections) - len(kept)
	w.slots[slot] = kept
}
