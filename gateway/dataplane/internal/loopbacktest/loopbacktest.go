// Package loopbacktest gives tests a connected pair of loopback TCP sockets.
package loopbacktest

import (
	"net"
	"testing"
)

// Pair dials a fresh loopback listener and returns the dialled end and the
// accepted one; the accepted end is closed when the test ends, the dialled
// end is the caller's.
func Pair(t *testing.T) (net.Conn, net.Conn) {
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
	client, err := net.Dial("tcp", listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	if server == nil {
		t.Fatal("the loopback listener accepted nothing")
	}
	t.Cleanup(func() { _ = server.Close() })
	return client, server
}
