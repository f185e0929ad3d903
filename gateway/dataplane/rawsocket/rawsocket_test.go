package rawsocket

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"lanterna/dataplane/internal/loopbacktest"
)

// pair: a wrapped client socket and the server's end of it.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	dialed, server := loopbacktest.Pair(t)
	wrapped, ok := Wrap(dialed).(*Conn)
	if !ok {
		t.Fatal("a tcp connection was not wrapped")
	}
	t.Cleanup(func() { _ = wrapped.Close() })
	return wrapped, server
}

func TestReadsWritesAndSeesTheEnd(t *testing.T) {
	conn, server := pair(t)
	if _, err := conn.Write([]byte("request")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 7)
	if _, err := io.ReadFull(server, got); err != nil || string(got) != "request" {
		t.Fatalf("%q %v", got, err)
	}
	_, _ = server.Write([]byte("answer"))
	_ = server.Close()
	all, err := io.ReadAll(conn)
	if err != nil || string(all) != "answer" {
		t.Fatalf("%q %v", all, err)
	}
}

func TestAWriteTheSocketCannotHoldWaitsCountsAPauseAndArrivesWhole(t *testing.T) {
	conn, server := pair(t)
	sent := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB: far past the socket buffers
	done := make(chan error, 1)
	go func() { _, err := conn.Write(sent); done <- err }()
	got := make([]byte, len(sent))
	if _, err := io.ReadFull(server, got); err != nil || !bytes.Equal(got, sent) {
		t.Fatalf("read back %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if conn.Pauses() != 1 {
		t.Fatalf("pauses %d", conn.Pauses())
	}
	// a write that fits is no pause
	if _, err := conn.Write([]byte("x")); err != nil || conn.Pauses() != 1 {
		t.Fatalf("pauses %d, %v", conn.Pauses(), err)
	}
}

func TestConcurrentWritesDoNotInterleave(t *testing.T) {
	conn, server := pair(t)
	const writers, frames, size = 4, 200, 5000
	var wait sync.WaitGroup
	for w := range writers {
		wait.Add(1)
		go func() {
			defer wait.Done()
			frame := bytes.Repeat([]byte{byte('a' + w)}, size)
			for range frames {
				if _, err := conn.Write(frame); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	frame := make([]byte, size)
	for i := range writers * frames {
		if _, err := io.ReadFull(server, frame); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(frame, bytes.Repeat(frame[:1], size)) {
			t.Fatalf("frame %d mixes two writes", i)
		}
	}
	wait.Wait()
}

func TestReadDeadlineAndCloseEndAWaitingRead(t *testing.T) {
	conn, _ := pair(t)
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	var netErr net.Error
	if _, err := conn.Read(make([]byte, 8)); !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Fatalf("want a timeout, got %v", err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	ended := make(chan error, 1)
	go func() { _, err := conn.Read(make([]byte, 8)); ended <- err }()
	_ = conn.Close()
	select {
	case err := <-ended:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("want net.ErrClosed, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a read outlived close")
	}
}

func TestSomethingOtherThanTCPIsLeftAsItIs(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	if Wrap(client) != client {
		t.Fatal("a pipe was wrapped")
	}
}
