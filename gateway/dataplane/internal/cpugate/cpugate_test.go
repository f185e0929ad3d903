package cpugate

import (
	"testing"
	"time"
)

func TestGateHoldsAtMostItsSlots(t *testing.T) {
	g := New(2)
	never := make(chan struct{})
	if !g.Enter(never) || !g.Enter(never) {
		t.Fatal("two slots: both taken at once")
	}
	done := make(chan struct{})
	entered := make(chan bool, 1)
	go func() { entered <- g.Enter(done) }()
	select {
	case <-entered:
		t.Fatal("a third entered a full gate")
	case <-time.After(50 * time.Millisecond):
	}
	g.Leave()
	if !<-entered {
		t.Fatal("a slot given back lets the waiter in")
	}
	if g.InUse() != 2 {
		t.Fatalf("in use %d, want 2", g.InUse())
	}
	go func() { entered <- g.Enter(done) }()
	close(done)
	if <-entered {
		t.Fatal("a waiter whose done closed must not take a slot")
	}
	if g.InUse() != 2 {
		t.Fatalf("in use %d after the abandoned wait, want 2", g.InUse())
	}
}

func TestNewHasAtLeastOneSlot(t *testing.T) {
	g := New(0)
	if !g.Enter(make(chan struct{})) {
		t.Fatal("a gate of no slots would stop every handshake")
	}
}
