package main

import (
	"math/rand/v2"
	"time"
)

// pacedConnection drives one established channel: a request every interval on
// its own timeline (start + k·interval, random phase), each response timed
// (loadtest/src/pacedConnection.ts). Sends missed during a stall are skipped,
// not caught up. How late each send fires is the generator's own delay: the
// Go twin of the Node generator's event-loop delay.
type pacedConnection struct {
	channel  echoChannel
	gen      *generator
	interval time.Duration
	// send times of unanswered requests, oldest first (guarded by gen.mu)
	sendTimes []int64
	head      int
	alive     bool
	stop      chan struct{}
}

func newPacedConnection(channel echoChannel, gen *generator, interval time.Duration) *pacedConnection {
	return &pacedConnection{channel: channel, gen: gen, interval: interval, alive: true, stop: make(chan struct{})}
}

func (p *pacedConnection) start() {
	go p.pace(time.Duration(rand.Int64N(int64(p.interval))))
	go p.read()
}

func (p *pacedConnection) pace(delay time.Duration) {
	next := time.Now().Add(delay)
	timer := time.NewTimer(delay)
	defer timer.Stop()
	request := p.gen.request
	for {
		select {
		case <-timer.C:
		case <-p.stop:
			return
		}
		now := time.Now()
		g := p.gen
		g.mu.Lock()
		if !p.alive {
			g.mu.Unlock()
			return
		}
		g.recordLateness(now.Sub(next))
		p.sendTimes = append(p.sendTimes, g.monotonicNs(now))
		g.counters.sent++
		g.mu.Unlock()
		if err := p.channel.send(request); err != nil {
			p.failed(err)
			return
		}
		next = next.Add(p.interval)
		if now = time.Now(); !next.After(now) {
			missed := now.Sub(next)/p.interval + 1
			next = next.Add(missed * p.interval)
		}
		timer.Reset(next.Sub(now))
	}
}

func (p *pacedConnection) read() {
	err := p.channel.readResponses(func(count int) error {
		g := p.gen
		now := g.monotonicNs(time.Now())
		g.mu.Lock()
		defer g.mu.Unlock()
		g.counters.received += int64(count)
		for range count {
			if p.head >= len(p.sendTimes) {
				return &kioskError{"relay", "response without an outstanding request"}
			}
			g.recordRoundTrip(now - p.sendTimes[p.head])
			p.head++
		}
		if p.head > 1024 && p.head*2 > len(p.sendTimes) {
			p.sendTimes = append(p.sendTimes[:0], p.sendTimes[p.head:]...)
			p.head = 0
		}
		return nil
	})
	p.failed(err)
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
	close(p.stop)
	p.channel.close()
}

func (p *pacedConnection) close() {
	p.gen.mu.Lock()
	wasAlive := p.alive
	p.alive = false
	p.gen.mu.Unlock()
	if wasAlive {
		close(p.stop)
	}
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
