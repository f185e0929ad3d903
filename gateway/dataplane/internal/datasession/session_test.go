package datasession

import (
	"bytes"
	"crypto/tls"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
)

func TestSecuredThenTheConfirmThenPdusBothWaysPingsAndAPoliteClose(t *testing.T) {
	node := &fakeNode{}
	node.target = rdpServer(t, sslConfirm, nil, echo)
	h := newHarness(t, node, nil)
	k := h.kiosk(t)
	secured := k.secure()
	if secured["type"] != "secured" || secured["protocol"] != "ssl" || secured["trust"] != "insecure" || len(secured["certificates"].([]any)) != 1 {
		t.Fatalf("secured %v", secured)
	}
	k.send(websocket.BinaryMessage, tpkt)
	if got := k.read(websocket.BinaryMessage); !bytes.Equal(got, tpkt) {
		t.Fatalf("echo %x", got)
	}
	// the second ping within 200 ms gets no pong: the PDU's echo comes next
	k.text(`{"type":"ping","t":1712345678901.5}`)
	k.text(`{"type":"ping","t":2}`)
	k.send(websocket.BinaryMessage, append(append([]byte{}, tpkt...), tpkt...))
	if pong := string(k.read(websocket.TextMessage)); pong != `{"type":"pong","t":1712345678901.5}` {
		t.Fatalf("pong %s", pong)
	}
	if got := k.read(websocket.BinaryMessage); len(got) != 14 {
		t.Fatalf("echo of two pdus: %x", got)
	}
	// the server's bytes are counted just after their batch is written: the
	// display can read the echo before the count (6 of 300 runs failed without this wait)
	h.engine.mu.Lock()
	session := h.engine.byID["s1"]
	h.engine.mu.Unlock()
	waitFor(t, func() bool { return session.figures.live.bytesToKiosk.Load() == 21 }, "the echo counted")
	sample := h.engine.Sample()
	if len(sample.Sessions) != 1 || sample.Sessions[0].BytesToServer != 21 || sample.Sessions[0].BytesToDisplay != 21 ||
		sample.Tally.PdusToServer != 3 || sample.Tally.FramesToServer != 2 || sample.Tally.BytesToKiosk != 21 {
		t.Fatalf("sample %+v tally %+v", sample.Sessions, sample.Tally)
	}
	var observed uint64
	for _, count := range sample.Latency.Counts {
		observed += count
	}
	if observed != sample.Tally.FramesToKiosk || observed == 0 || len(sample.Latency.Counts) != len(sample.Latency.Bounds)+1 {
		t.Fatalf("latency %+v for %d frames", sample.Latency, sample.Tally.FramesToKiosk)
	}
	if again := h.engine.Sample(); again.Tally.BytesToServer != 0 || again.Sessions[0].BytesToServer != 21 {
		t.Fatalf("the second sample's tally is not since the first: %+v %+v", again.Tally, again.Sessions)
	}
	k.text(`{"type":"close"}`)
	if ended := k.readJSON(); ended["type"] != "ended" || ended["reason"] != "client-closed" {
		t.Fatalf("ended %v", ended)
	}
	if code, reason := k.closed(); code != 1000 || reason != "client-closed" {
		t.Fatalf("closed %d %q", code, reason)
	}
	if ended := node.ended(t); ended.Reason != rpc.ReasonClientClosed || ended.Error != nil {
		t.Fatalf("ended %+v", ended)
	}
	ops := strings.Join(node.ops(), " ")
	if !strings.Contains(ops, "phase phase phase secured") {
		t.Fatalf("notifications %s", ops)
	}
}

func TestAnUnexpectedControlMessageIsABadMessage(t *testing.T) {
	_, node, k := relayingEcho(t, nil)
	k.text(`{"type":"open","token":"again"}`)
	k.expectError("relay", "bad-message", 4400)
	if ended := node.ended(t); ended.Reason != rpc.ReasonError || ended.Error.Code != "bad-message" {
		t.Fatalf("ended %+v", ended)
	}
}

func TestAMalformedPduFromTheDisplayIsPduInvalid(t *testing.T) {
	_, _, k := relayingEcho(t, nil)
	// a TPKT that claims 9 bytes in a frame of 7
	k.send(websocket.BinaryMessage, []byte{0x03, 0x00, 0x00, 0x09, 0x02, 0xf0, 0x80})
	message := k.expectError("relay", "pdu-invalid", 4400)
	if detail := message["detail"].(map[string]any); detail["side"] != "client" || !strings.HasPrefix(message["message"].(string), "the display sent a malformed RDP message: ") {
		t.Fatalf("error %v", message)
	}
}

func TestAMalformedPduFromTheServerIsAServerError(t *testing.T) {
	node := &fakeNode{}
	node.target = rdpServer(t, sslConfirm, nil, func(conn *tls.Conn) {
		_, _ = conn.Write([]byte{0x04, 0x00, 0x00, 0x07, 0, 0, 0})
		_, _ = io.Copy(io.Discard, conn)
	})
	k := newHarness(t, node, nil).kiosk(t)
	k.secure()
	k.expectError("relay", "server-error", 4502)
}

func TestNoTrafficForTheIdleTimeoutEndsTheSession(t *testing.T) {
	_, _, k := relayingEcho(t, func(o *Options) { o.Relay.IdleTimeoutMs = 50 })
	message := k.expectError("relay", "timeout", 4408)
	if message["message"] != "no traffic for 50 ms" {
		t.Fatalf("error %v", message)
	}
}

func TestAStopEndsARelayingSession(t *testing.T) {
	h, _, k := relayingEcho(t, nil)
	h.engine.Stop("s1", "stopped")
	if ended := k.readJSON(); ended["type"] != "ended" || ended["reason"] != "stopped" {
		t.Fatalf("ended %v", ended)
	}
	if code, _ := k.closed(); code != 1000 {
		t.Fatalf("close code %d", code)
	}
}

func TestADrainEndsRelayingSessionsWithGatewayShutdown(t *testing.T) {
	h, _, k := relayingEcho(t, nil)
	drained := make(chan struct{})
	go func() { h.engine.Drain(0); close(drained) }()
	if ended := k.readJSON(); ended["type"] != "ended" || ended["reason"] != "gateway-shutdown" {
		t.Fatalf("ended %v", ended)
	}
	if code, reason := k.closed(); code != 1001 || reason != "gateway-shutdown" {
		t.Fatalf("closed %d %q", code, reason)
	}
	select {
	case <-drained:
	case <-time.After(wait):
		t.Fatal("the drain did not end")
	}
}

func TestTheServerClosingEndsTheSession(t *testing.T) {
	node := &fakeNode{}
	node.target = rdpServer(t, sslConfirm, nil, func(conn *tls.Conn) { _ = conn.Close() })
	k := newHarness(t, node, nil).kiosk(t)
	k.secure()
	if ended := k.readJSON(); ended["reason"] != "server-closed" {
		t.Fatalf("ended %v", ended)
	}
}
