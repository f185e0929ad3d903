package edgeloop

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"lanterna/dataplane/internal/loopbacktest"
)

// Issue 31: a backlog has a hard cap, and a peer past it is cut alone.
func TestABacklogPastItsLimitCutsThatPeerAloneAndTheLoopGoesOn(t *testing.T) {
	loop := newLoop(t, 64)
	const limit = 256 << 10
	s, _ := handedOff(t) // its peer never reads
	s.KeepBacklog(64<<10, 16<<10, limit, nil)
	r := serving(t, loop, s, 4)
	other, otherPeer := handedOff(t)
	other.KeepBacklog(64<<10, 16<<10, limit, nil)
	o := serving(t, loop, other, 4)

	// small writes, as pongs and key update answers are: they never wait, and past the limit they fail
	chunk := make([]byte, 100)
	var writeErr error
	for i := 0; i < 1_000_000 && writeErr == nil; i++ {
		_, writeErr = s.Write(chunk)
	}
	if !errors.Is(writeErr, ErrBacklogFull) || !s.Overflowed() {
		t.Fatalf("the writes went on: %v (backlog %d)", writeErr, s.Backlog())
	}
	if s.Backlog() > limit {
		t.Fatalf("backlog %d over its limit %d", s.Backlog(), limit)
	}
	select {
	case <-r.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the loop did not see the overflowing socket end")
	}
	if _, err := s.Write(chunk); err == nil {
		t.Fatal("a write after the overflow was taken")
	}

	// the other socket of the loop is served as before
	if _, err := otherPeer.Write([]byte("still here")); err != nil {
		t.Fatal(err)
	}
	if got := o.collect(t, len("still here")); string(got) != "still here" {
		t.Fatalf("the other socket read %q", got)
	}
	if _, err := other.Write([]byte("and back")); err != nil {
		t.Fatal(err)
	}
	back := make([]byte, len("and back"))
	_ = otherPeer.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(otherPeer, back); err != nil || string(back) != "and back" {
		t.Fatalf("%q %v", back, err)
	}
}

// Issue 31: a write before the hand-off has a deadline that frees the connection.
func TestAWriteBeforeTheHandOffThatStallsClosesTheConnection(t *testing.T) {
	conn, peer := loopbacktest.Pair(t) // the peer never reads
	s := NewSocket(conn)
	s.LimitWriteStall(300 * time.Millisecond)
	chunk := make([]byte, 64<<10)
	started := time.Now()
	var err error
	for time.Since(started) < 10*time.Second && err == nil {
		_, err = s.Write(chunk)
	}
	if !errors.Is(err, ErrWriteStalled) || !errors.Is(err, os.ErrDeadlineExceeded) || !s.Stalled() {
		t.Fatalf("write: %v after %v", err, time.Since(started))
	}
	if took := time.Since(started); took > 3*time.Second {
		t.Fatalf("the stall was cut after %v", took)
	}
	// the connection is closed: every write fails at once, and the peer reads its end
	if _, err := s.Write([]byte("x")); !errors.Is(err, ErrWriteStalled) {
		t.Fatalf("write after the stall: %v", err)
	}
	_ = peer.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, peer); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		// a reset is an end too
		t.Log(err)
	} else if err != nil {
		t.Fatal("the peer never saw the connection end")
	}
}

// The caller's own sooner deadline is the caller's: a timeout, the connection left open.
func TestACallersSoonerWriteDeadlineIsKept(t *testing.T) {
	conn, peer := loopbacktest.Pair(t)
	s := NewSocket(conn)
	s.LimitWriteStall(10 * time.Second)
	if err := s.SetWriteDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	started := time.Now()
	var err error
	for time.Since(started) < 5*time.Second && err == nil {
		_, err = s.Write(chunk)
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, ErrWriteStalled) || s.Stalled() {
		t.Fatalf("write: %v stalled %v", err, s.Stalled())
	}
	_ = peer.Close()
	_ = s.Close()
}
