package datasession

import (
	"context"
	"sync"
	"time"
)

// presenterDesk is where a presenter's socket waits for its display's data
// socket (presenterLegs.ts): at most one presenter per session (its token
// is single-use). Within one data plane: see docs/browser-presenter.md.
type presenterDesk struct {
	mu       sync.Mutex
	waiting  map[string]*presenterLeg
	displays map[string]chan *presenterLeg
}

func newPresenterDesk() *presenterDesk {
	return &presenterDesk{waiting: map[string]*presenterLeg{}, displays: map[string]chan *presenterLeg{}}
}

// offer puts a waiting presenter on the desk, or hands it to its display
// already waiting; false when the session has a presenter waiting already.
func (d *presenterDesk) offer(p *presenterLeg) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if display, ok := d.displays[p.id]; ok {
		delete(d.displays, p.id)
		if p.state.CompareAndSwap(presenterWaiting, presenterConfirming) {
			display <- p
			close(p.taken)
			return true
		}
		// it spoke or left already: the display waits on
		d.displays[p.id] = display
		return true
	}
	if _, ok := d.waiting[p.id]; ok {
		return false
	}
	if p.state.Load() == presenterWaiting {
		d.waiting[p.id] = p
	}
	return true
}

// withdraw takes a presenter off the desk before a display took it: false when one did.
func (d *presenterDesk) withdraw(p *presenterLeg) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !p.state.CompareAndSwap(presenterWaiting, presenterLeaving) {
		return p.state.Load() == presenterLeaving
	}
	if d.waiting[p.id] == p {
		delete(d.waiting, p.id)
	}
	return true
}

// stop ends the wait of a session's presenter (an admin's or the presenter API's stop); false when none waits.
func (d *presenterDesk) stop(sessionID, reason string) bool {
	d.mu.Lock()
	p := d.waiting[sessionID]
	d.mu.Unlock()
	if p == nil {
		return false
	}
	select {
	case p.stopped <- reason:
	default:
	}
	return true
}

// take is the display's session asking for its presenter: the leg, moved to
// presenterConfirming with s as its session, or nil when timeout passes or
// ctx ends first.
func (d *presenterDesk) take(ctx context.Context, s *session, timeout time.Duration) *presenterLeg {
	d.mu.Lock()
	if p, ok := d.waiting[s.id]; ok {
		delete(d.waiting, s.id)
		p.session = s
		if p.state.CompareAndSwap(presenterWaiting, presenterConfirming) {
			close(p.taken)
			d.mu.Unlock()
			return p
		}
	}
	arrived := make(chan *presenterLeg, 1)
	d.displays[s.id] = arrived
	d.mu.Unlock()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case p := <-arrived:
		return p
	case <-ctx.Done():
	case <-timer.C:
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.displays[s.id] == arrived {
		delete(d.displays, s.id)
	}
	// one may have come as the wait ended
	select {
	case p := <-arrived:
		return p
	default:
		return nil
	}
}
