package edgeloop

import (
	"net"
	"testing"
	"time"

	"lanterna/dataplane/internal/cpugate"
)

// A handshake waiting for a silent peer holds no CPU slot: another socket's
// handshake gets the gate's only slot meanwhile, and the first takes it back
// once its bytes come and the slot is free (issue 31, finding 7).
func TestCPUShareIsGivenBackWhileWaitingForThePeer(t *testing.T) {
	gate := cpugate.New(1)
	never := make(chan struct{})
	ours, peer := net.Pipe()
	defer ours.Close()
	defer peer.Close()
	waiting := NewSocket(ours)
	if !waiting.HoldCPUShare(gate, never) {
		t.Fatal("an empty gate has a slot")
	}
	read := make(chan error, 1)
	go func() {
		_, err := waiting.Read(make([]byte, 8))
		read <- err
	}()
	deadline := time.Now().Add(2 * time.Second)
	for gate.InUse() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the slot was not given back while the read waited for the peer")
		}
		time.Sleep(time.Millisecond)
	}
	other := NewSocket(&net.TCPConn{})
	if !other.HoldCPUShare(gate, never) {
		t.Fatal("another handshake could not enter while the first waited")
	}
	go func() { _, _ = peer.Write([]byte("hello")) }()
	select {
	case <-read:
		t.Fatal("the read came back without its slot while another held it")
	case <-time.After(50 * time.Millisecond):
	}
	other.ReleaseCPUShare()
	if err := <-read; err != nil {
		t.Fatalf("read: %v", err)
	}
	if gate.InUse() != 1 {
		t.Fatalf("in use %d: the first holds its slot again", gate.InUse())
	}
	waiting.ReleaseCPUShare()
	waiting.ReleaseCPUShare() // twice is harmless
	if gate.InUse() != 0 {
		t.Fatalf("in use %d after release", gate.InUse())
	}
}

// A handshake whose deadline passes while the gate is full takes no slot.
func TestCPUShareNotTakenPastTheDeadline(t *testing.T) {
	gate := cpugate.New(1)
	busy := NewSocket(&net.TCPConn{})
	busy.HoldCPUShare(gate, make(chan struct{}))
	done := make(chan struct{})
	close(done)
	if NewSocket(&net.TCPConn{}).HoldCPUShare(gate, done) {
		t.Fatal("entered a full gate after its deadline")
	}
	if gate.InUse() != 1 {
		t.Fatalf("in use %d", gate.InUse())
	}
}
