package main

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lanterna/loadtest-generator/internal/servetest"
)

// echoTarget: a TLS server that sends back what it reads (the echo host's tls-first mode, minus X.224).
func echoTarget(t *testing.T) string {
	t.Helper()
	listener, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{servetest.SelfSigned(t)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = listener.Close() })
	go servetest.EachConn(listener, func(conn net.Conn) { _, _ = io.Copy(conn, conn) })
	return listener.Addr().String()
}

// relayAt: a pipe relay to target and a WebSocket to it, both closed after
// the test, the WebSocket's reads bounded.
func relayAt(t *testing.T, target string) *websocket.Conn {
	t.Helper()
	relay := httptest.NewServer(relayHandler(target))
	t.Cleanup(relay.Close)
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(relay.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	return ws
}

func TestRelaysBinaryMessagesToTheTargetAndItsBytesBackAndEndsWithTheTarget(t *testing.T) {
	ws := relayAt(t, echoTarget(t))
	for _, size := range []int{90, 20_000} {
		sent := bytes.Repeat([]byte{byte(size)}, size)
		if err := ws.WriteMessage(websocket.BinaryMessage, sent); err != nil {
			t.Fatal(err)
		}
		var got []byte
		for len(got) < size {
			kind, data, err := ws.ReadMessage()
			if err != nil || kind != websocket.BinaryMessage {
				t.Fatalf("size %d: kind %d, %v", size, kind, err)
			}
			got = append(got, data...)
		}
		if !bytes.Equal(got, sent) {
			t.Fatalf("size %d: %d bytes back, not the same", size, len(got))
		}
	}
	// a relay to a target that is gone closes the WebSocket
	deadTarget, _ := net.Listen("tcp", "127.0.0.1:0")
	address := deadTarget.Addr().String()
	_ = deadTarget.Close()
	ws2 := relayAt(t, address)
	if _, _, err := ws2.ReadMessage(); err == nil || strings.Contains(err.Error(), "timeout") {
		t.Fatalf("the websocket outlived its unreachable target: %v", err)
	}
}
