package frontdoor

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

func rawPair(t *testing.T) (*rawConn, net.Conn) {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		conn, _ := listener.Accept()
		accepted <- conn
	}()
	dialed, err := net.Dial("tcp", listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	t.Cleanup(func() { _ = dialed.Close(); _ = peer.Close() })
	return wrapRaw(dialed).(*rawConn), peer
}

func TestARawWriteTheSocketCannotHoldWaitsCountsAPauseAndArrivesWhole(t *testing.T) {
	conn, peer := rawPair(t)
	sent := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB, far past the socket buffers
	written := make(chan error, 1)
	go func() {
		_, err := conn.Write(sent)
		written <- err
	}()
	got := make([]byte, len(sent))
	if _, err := io.ReadFull(peer, got); err != nil || !bytes.Equal(got, sent) {
		t.Fatalf("read %v, equal %v", err, bytes.Equal(got, sent))
	}
	if err := <-written; err != nil {
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

func TestARawReadEndsAtItsDeadlineAndAtTheEndOfTheStream(t *testing.T) {
	conn, peer := rawPair(t)
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := conn.Read(make([]byte, 8)); !isTimeout(err) {
		t.Fatalf("err %v", err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	_, _ = peer.Write([]byte("abc"))
	_ = peer.Close()
	got, err := io.ReadAll(conn)
	if err != nil || string(got) != "abc" {
		t.Fatalf("%q %v", got, err)
	}
}
