package datasession

// The handshake: open, the Connection Request, and the silence while the
// server leg is made (handshake.go).

import (
	"bytes"
	"testing"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/pdu"
)

// requestedWhileTheServerHolds: a kiosk that has sent open and its Connection
// Request to a server that holds its Confirm until the test ends (the
// display must be silent meanwhile).
func requestedWhileTheServerHolds(t *testing.T) *kiosk {
	node := &fakeNode{}
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	node.target = rdpServer(t, sslConfirm, hold, echo)
	k := newHarness(t, node, nil).kiosk(t)
	k.text(`{"type":"open","token":"tok"}`)
	k.send(websocket.BinaryMessage, pdu.BuildConnectionRequest(pdu.ProtocolSSL, ""))
	return k
}

func TestDataWhileTheServerLegIsMadeIsABadMessage(t *testing.T) {
	k := requestedWhileTheServerHolds(t)
	k.send(websocket.BinaryMessage, tpkt)
	message := k.expectError("request", "bad-message", 4400)
	if message["message"] != "the display sent data before the server connection was secured" {
		t.Fatalf("error %v", message)
	}
}

func TestAPoliteCloseWhileTheServerLegIsMadeEndsPolitely(t *testing.T) {
	k := requestedWhileTheServerHolds(t)
	k.text(`{"type":"close"}`)
	if ended := k.readJSON(); ended["type"] != "ended" || ended["reason"] != "client-closed" {
		t.Fatalf("ended %v", ended)
	}
	if code, _ := k.closed(); code != 1000 {
		t.Fatalf("close code %d", code)
	}
}

func TestTheHandshakesErrors(t *testing.T) {
	t.Run("the first message must be open", func(t *testing.T) {
		k := newHarness(t, &fakeNode{}, nil).kiosk(t)
		k.send(websocket.BinaryMessage, tpkt)
		k.expectError("open", "bad-message", 4400)
	})
	t.Run("no open in time", func(t *testing.T) {
		k := newHarness(t, &fakeNode{}, func(o *Options) { o.Timeouts.HelloMs = 30 }).kiosk(t)
		message := k.expectError("open", "timeout", 4408)
		if message["message"] != "no open message within 30 ms" {
			t.Fatalf("error %v", message)
		}
	})
	t.Run("node refuses the token", func(t *testing.T) {
		node := &fakeNode{openRefusal: sessionerr.New("open", "unauthorized", "")}
		k := newHarness(t, node, nil).kiosk(t)
		k.text(`{"type":"open","token":"bad"}`)
		if message := k.expectError("open", "unauthorized", 4401); message["message"] != "this display is not authorised" {
			t.Fatalf("the default message is not the table's: %v", message)
		}
	})
	t.Run("a text request", func(t *testing.T) {
		k := newHarness(t, &fakeNode{}, nil).kiosk(t)
		k.text(`{"type":"open","token":"tok"}`)
		k.text(`{"type":"ping","t":1}`)
		k.expectError("request", "bad-message", 4400)
	})
	t.Run("the gateway is full", func(t *testing.T) {
		h := newHarness(t, &fakeNode{}, func(o *Options) { o.MaxSessions = 1 })
		// another session holds the one place
		h.engine.mu.Lock()
		h.engine.admitted = 1
		h.engine.mu.Unlock()
		k := h.kiosk(t)
		k.text(`{"type":"open","token":"tok"}`)
		k.expectError("open", "gateway-busy", 1013)
	})
	t.Run("a server's negotiation failure sends its confirm first", func(t *testing.T) {
		failure := pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmFailure, FailureCode: 2})
		node := &fakeNode{}
		node.target = rdpServer(t, failure, nil, echo)
		k := newHarness(t, node, nil).kiosk(t)
		k.text(`{"type":"open","token":"tok"}`)
		k.send(websocket.BinaryMessage, pdu.BuildConnectionRequest(pdu.ProtocolSSL, ""))
		if confirm := k.read(websocket.BinaryMessage); !bytes.Equal(confirm, failure) {
			t.Fatalf("confirm %x", confirm)
		}
		k.expectError("x224", "negotiation-failed", 4502)
	})
}

func TestKioskMessagesAreReadAsTheProtocolPackageReadsThem(t *testing.T) {
	for text, ok := range map[string]bool{
		`{"type":"open","token":"t"}`: true, `{"type":"open"}`: false, `{"type":"open","token":1}`: false,
		`{"TYPE":"open","token":"t"}`: false, `{"type":"ping","t":1e3}`: true, `{"type":"ping","t":"1"}`: false,
		`{"type":"close","extra":1}`: true, `{"type":"hello"}`: false, `[]`: false, `null`: false, `nope`: false,
	} {
		if _, got := parseKioskMessage([]byte(text)); got != ok {
			t.Errorf("%s: %v", text, got)
		}
	}
	if pong := string(pongMessage(1e3)); pong != `{"type":"pong","t":1000}` {
		t.Errorf("pong %s", pong)
	}
}
