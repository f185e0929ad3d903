package main

import (
	"context"
	"crypto/tls"
	"encoding/hex"
	"net"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lanterna/loadtest-generator/internal/loadwire"
	"github.com/lanterna/loadtest-generator/internal/servetest"
	"lanterna/dataplane/edgeloop"
)

// @lanterna/protocol's Connection Request (PROTOCOL_SSL, a cookie)
const directConnectionRequest = "0300002e29e00000000000436f6f6b69653a206d737473686173683d6c6f6164746573740d0a0100080001000000"

// directEcho: an echo host in small (Confirm, TLS, echo of every read);
// each connection's server side goes to `accepted`.
func directEcho(t *testing.T) (port int, accepted chan *tls.Conn) {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = listener.Close() })
	// httptest's self-signed certificate (the client skips verification, as against the echo host)
	server := httptest.NewTLSServer(nil)
	t.Cleanup(server.Close)
	config := &tls.Config{Certificates: server.TLS.Certificates}
	accepted = make(chan *tls.Conn, 4)
	go servetest.EachConn(listener, func(conn net.Conn) {
		request := make([]byte, 0x2e)
		if _, err := conn.Read(request); err != nil {
			return
		}
		_, _ = conn.Write(loadwire.ConfirmSSL())
		secure := tls.Server(conn, config)
		if secure.Handshake() != nil {
			return
		}
		accepted <- secure
		buf := make([]byte, 16384)
		for {
			n, err := secure.Read(buf)
			if err != nil {
				return
			}
			_, _ = secure.Write(buf[:n])
		}
	})
	return listener.Addr().(*net.TCPAddr).Port, accepted
}

func TestTheDirectChannelIsReadByTheEventLoopAndReportsTheEnd(t *testing.T) {
	port, accepted := directEcho(t)
	connectionRequest, _ := hex.DecodeString(directConnectionRequest)
	request, err := loadwire.BuildTpktPdu(90)
	if err != nil {
		t.Fatal(err)
	}
	wire := &wireDetails{ConnectionRequest: connectionRequest, RequestPdu: request}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	channel, err := connectDirect(ctx, wire, "127.0.0.1", port, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	loop, err := edgeloop.New(16384)
	if err != nil {
		t.Fatal(err)
	}
	responses := make(chan int, 16)
	failures := make(chan error, 1)
	looped, ok := channel.(loopedChannel)
	if !ok {
		t.Fatal("the direct channel is not read by the loop")
	}
	looped.attach(loop, func(count int) error { responses <- count; return nil }, func(err error) { failures <- err })
	server := <-accepted
	deadline := time.After(5 * time.Second)
	// requests one at a time, then three sent back to back (read as one arrival or several)
	for round, sends := range []int{1, 1, 3} {
		for range sends {
			if err := channel.send(); err != nil {
				t.Fatal(err)
			}
		}
		for got := 0; got < sends; {
			select {
			case count := <-responses:
				got += count
			case <-deadline:
				t.Fatalf("round %d: %d of %d responses", round, got, sends)
			}
		}
	}
	_ = server.Close()
	select {
	case err := <-failures:
		if err == nil || err.Error() != "echo host closed the connection" {
			t.Fatalf("failure %v", err)
		}
	case <-deadline:
		t.Fatal("the end of the connection was not reported")
	}
	if err := channel.send(); err == nil {
		t.Fatal("a send after the failure went out")
	}
}
