package datasession

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/pdu"
)

func TestPresenterLegJoinsTheDisplayAndRelaysWholePdusBothWaysUntilThePageClosesPolitely(t *testing.T) {
	node := &fakeNode{}
	_, page, display := presenterHarness(t, node, nil)
	joined(t, page, display)
	up := dataTpkt(100, 1)
	display.send(websocket.BinaryMessage, up)
	if got := page.read(websocket.BinaryMessage); !bytes.Equal(got, up) {
		t.Fatalf("the page got %x", got)
	}
	// two PDUs in one message, both whole: the display gets them
	down := append(dataTpkt(40, 2), dataTpkt(50, 3)...)
	page.send(websocket.BinaryMessage, down)
	if got := display.read(websocket.BinaryMessage); !bytes.Equal(got, down) {
		t.Fatalf("the display got %x", got)
	}
	page.text(`{"type":"close"}`)
	if ended := display.readJSON(); ended["type"] != "ended" || ended["reason"] != rpc.ReasonServerClosed {
		t.Fatalf("the display heard %v", ended)
	}
	if got := node.ended(t); got.Reason != rpc.ReasonServerClosed {
		t.Fatalf("ended %+v", got)
	}
	if ops := node.ops(); !contains(ops, rpc.OpSecured) {
		t.Fatalf("no secured notification: %v", ops)
	}
}

func TestAPresenterPageThatSendsGarbageEndsItsOwnSessionAndTheDisplaysWithItsReason(t *testing.T) {
	for _, tc := range []struct {
		name    string
		send    func(page *kiosk)
		code    string
		close   int
		message string
	}{
		{"a partial PDU", func(page *kiosk) { page.send(websocket.BinaryMessage, []byte{3, 0, 0x03, 0xe8, 1, 2, 3, 4}) }, sessionerr.CodeBadMessage, 4400, "not whole rdp pdus"},
		{"text that is not close", func(page *kiosk) { page.text(`{"type":"present","token":"x"}`) }, sessionerr.CodeBadMessage, 4400, "text that is not close: present"},
		{"not JSON", func(page *kiosk) { page.text(`hello`) }, sessionerr.CodeBadMessage, 4400, "not a message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := &fakeNode{}
			_, page, display := presenterHarness(t, node, nil)
			joined(t, page, display)
			tc.send(page)
			heard := page.expectError(sessionerr.PhaseRelay, tc.code, tc.close)
			if !strings.Contains(heard["message"].(string), tc.message) {
				t.Fatalf("the page heard %v", heard)
			}
			shown := display.expectError(sessionerr.PhaseRelay, sessionerr.CodeServerError, 4502)
			if shown["detail"].(map[string]any)["side"] != "server" || !strings.Contains(shown["message"].(string), "the presenter page") {
				t.Fatalf("the display heard %v", shown)
			}
		})
	}
}

func TestAPresenterPageThatNeverConfirmsEndsWithTimeoutAndHearsBadMessage(t *testing.T) {
	node := &fakeNode{}
	_, page, display := presenterHarness(t, node, func(o *Options) { o.Timeouts.ConfirmMs = 200 })
	display.send(websocket.BinaryMessage, pdu.BuildConnectionRequest(pdu.ProtocolSSL|pdu.ProtocolHybrid, ""))
	page.read(websocket.BinaryMessage)
	started := time.Now()
	shown := display.expectError(sessionerr.PhaseX224, sessionerr.CodeTimeout, 4408)
	if waited := time.Since(started); waited < 150*time.Millisecond || waited > 3*time.Second {
		t.Fatalf("the display waited %s for a 200 ms confirm deadline", waited)
	}
	if shown["detail"].(map[string]any)["phase"] != "x224" {
		t.Fatalf("the display heard %v", shown)
	}
	heard := page.expectError(sessionerr.PhaseX224, sessionerr.CodeBadMessage, 4400)
	if !strings.Contains(heard["message"].(string), "no connection confirm within 200 ms") {
		t.Fatalf("the page heard %v", heard)
	}
}

func TestAPresenterConfirmThatIsNotTLSOrNotOneTpktIsThePagesFault(t *testing.T) {
	for _, tc := range []struct {
		name, display, page string
		answer              []byte
		kind                int
	}{
		{"hybrid", sessionerr.CodeNegotiationFailed, "selected protocol 2, not tls", pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmSuccess, SelectedProtocol: pdu.ProtocolHybrid}), websocket.BinaryMessage},
		{"standard RDP security", sessionerr.CodeNegotiationFailed, "selected protocol 0, not tls", []byte{3, 0, 0, 11, 6, 0xd0, 0, 0, 0x12, 0x34, 0}, websocket.BinaryMessage},
		{"a data TPDU", sessionerr.CodeX224Invalid, "sent no connection confirm", []byte{3, 0, 0, 7, 2, 0xf0, 0x80}, websocket.BinaryMessage},
		{"two TPKTs", sessionerr.CodeX224Invalid, "not one tpkt", append(append([]byte{}, sslConfirm...), sslConfirm...), websocket.BinaryMessage},
		{"too long", sessionerr.CodeX224Invalid, "where a connection confirm of at most 1024 belongs", dataTpkt(2000, 0), websocket.BinaryMessage},
		{"text", sessionerr.CodeX224Invalid, "sent text where its connection confirm belongs", []byte(`{"type":"close"}`), websocket.TextMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := &fakeNode{}
			_, page, display := presenterHarness(t, node, nil)
			display.send(websocket.BinaryMessage, pdu.BuildConnectionRequest(pdu.ProtocolSSL|pdu.ProtocolHybrid, ""))
			page.read(websocket.BinaryMessage)
			page.send(tc.kind, tc.answer)
			display.expectError(sessionerr.PhaseX224, tc.display, 4502)
			heard := page.expectError(sessionerr.PhaseX224, sessionerr.CodeBadMessage, 4400)
			if !strings.Contains(heard["message"].(string), tc.page) {
				t.Fatalf("the page heard %v", heard)
			}
		})
	}
}

func TestAPresenterPageThatLeavesMidSessionEndsTheDisplaysAsAServerThatClosed(t *testing.T) {
	node := &fakeNode{}
	_, page, display := presenterHarness(t, node, nil)
	joined(t, page, display)
	_ = page.ws.Close()
	if ended := display.readJSON(); ended["type"] != "ended" || ended["reason"] != rpc.ReasonServerClosed {
		t.Fatalf("the display heard %v", ended)
	}
}

func TestTheDisplayLeavingOrAStopTellsThePage(t *testing.T) {
	node := &fakeNode{}
	h, page, display := presenterHarness(t, node, nil)
	joined(t, page, display)
	h.engine.Stop("s1", "")
	if ended := page.readJSON(); ended["type"] != "ended" || ended["reason"] != rpc.ReasonStopped {
		t.Fatalf("the page heard %v", ended)
	}
	if code, _ := page.closed(); code != websocket.CloseNormalClosure {
		t.Fatalf("the page's close %d", code)
	}
	if ended := display.readJSON(); ended["reason"] != rpc.ReasonStopped {
		t.Fatalf("the display heard %v", ended)
	}
}

func TestAWaitingPresenterThatSpeaksIsWrongTokenIsStoppedOrOutlivesItsTokenEndsAlone(t *testing.T) {
	t.Run("speaks", func(t *testing.T) {
		node := &fakeNode{presenter: true}
		h := newHarness(t, node, nil)
		page := h.waitingPage(t)
		page.send(websocket.BinaryMessage, dataTpkt(10, 0))
		page.expectError(sessionerr.PhaseOpen, sessionerr.CodeBadMessage, 4400)
		if got := node.presenterEnded(t); got.Error == nil || got.Error.Code != sessionerr.CodeBadMessage {
			t.Fatalf("presenter-ended %+v", got)
		}
	})
	t.Run("closes politely", func(t *testing.T) {
		node := &fakeNode{presenter: true}
		h := newHarness(t, node, nil)
		page := h.waitingPage(t)
		page.text(`{"type":"close"}`)
		if ended := page.readJSON(); ended["reason"] != rpc.ReasonServerClosed {
			t.Fatalf("the page heard %v", ended)
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		node := &fakeNode{presenter: true, presentRefusal: sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeUnauthorized, "the session token is not valid")}
		h := newHarness(t, node, nil)
		page := h.presenterPage(t)
		page.present()
		page.expectError(sessionerr.PhaseOpen, sessionerr.CodeUnauthorized, 4401)
	})
	t.Run("binary first", func(t *testing.T) {
		node := &fakeNode{presenter: true, presentRefusal: sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeBadMessage, "the first message must be present")}
		h := newHarness(t, node, nil)
		page := h.presenterPage(t)
		page.send(websocket.BinaryMessage, dataTpkt(10, 0))
		page.expectError(sessionerr.PhaseOpen, sessionerr.CodeBadMessage, 4400)
	})
	t.Run("silent past helloMs", func(t *testing.T) {
		node := &fakeNode{presenter: true}
		h := newHarness(t, node, func(o *Options) { o.Timeouts.HelloMs = 100 })
		page := h.presenterPage(t)
		page.expectError(sessionerr.PhaseOpen, sessionerr.CodeTimeout, 4408)
	})
	t.Run("stopped", func(t *testing.T) {
		node := &fakeNode{presenter: true}
		h := newHarness(t, node, nil)
		page := h.waitingPage(t)
		h.engine.Stop("s1", "")
		if ended := page.readJSON(); ended["reason"] != rpc.ReasonStopped {
			t.Fatalf("the page heard %v", ended)
		}
	})
	t.Run("outlives its token", func(t *testing.T) {
		node := &fakeNode{presenter: true, presenterWaitMs: 100}
		h := newHarness(t, node, nil)
		page := h.presenterPage(t)
		page.present()
		page.expectError(sessionerr.PhaseOpen, sessionerr.CodeTimeout, 4408)
	})
	t.Run("drained", func(t *testing.T) {
		node := &fakeNode{presenter: true}
		h := newHarness(t, node, nil)
		page := h.waitingPage(t)
		drained := make(chan struct{})
		go func() { h.engine.Drain(time.Second); close(drained) }()
		if ended := page.readJSON(); ended["reason"] != rpc.ReasonGatewayShutdown {
			t.Fatalf("the page heard %v", ended)
		}
		if code, _ := page.closed(); code != websocket.CloseGoingAway {
			t.Fatalf("the page's close %d", code)
		}
		select {
		case <-drained:
		case <-time.After(wait):
			t.Fatal("the drain did not end")
		}
	})
}

func TestADisplayWhosePresenterNeverComesOrThatOffersNoTLSEndsTyped(t *testing.T) {
	t.Run("no presenter", func(t *testing.T) {
		node := &fakeNode{presenter: true}
		h := newHarness(t, node, func(o *Options) { o.Timeouts.ConnectMs = 100 })
		display := h.kiosk(t)
		display.text(`{"type":"open","token":"tok"}`)
		display.send(websocket.BinaryMessage, pdu.BuildConnectionRequest(pdu.ProtocolSSL|pdu.ProtocolHybrid, ""))
		display.expectError(sessionerr.PhaseConnect, sessionerr.CodeTimeout, 4408)
	})
	t.Run("no tls offered, requireNla set", func(t *testing.T) {
		node := &fakeNode{presenter: true}
		h := newHarness(t, node, func(o *Options) { o.RequireNla = true })
		display := h.kiosk(t)
		display.text(`{"type":"open","token":"tok"}`)
		display.send(websocket.BinaryMessage, pdu.BuildConnectionRequest(pdu.ProtocolHybrid, ""))
		display.expectError(sessionerr.PhaseRequest, sessionerr.CodeNegotiationFailed, 4502)
	})
	t.Run("ssl only, requireNla set: a presenter's leg is exempt", func(t *testing.T) {
		node := &fakeNode{}
		_, page, display := presenterHarness(t, node, func(o *Options) { o.RequireNla = true })
		request := pdu.BuildConnectionRequest(pdu.ProtocolSSL, "")
		display.send(websocket.BinaryMessage, request)
		page.read(websocket.BinaryMessage)
		page.send(websocket.BinaryMessage, sslConfirm)
		if secured := display.readJSON(); secured["type"] != "secured" {
			t.Fatalf("the display heard %v", secured)
		}
	})
}

func TestAPresenterPagePastItsRateIsReadLaterNotCut(t *testing.T) {
	node := &fakeNode{}
	const rate = 128 << 10
	_, page, display := presenterHarness(t, node, func(o *Options) { o.Relay.PresenterBytesPerSecond = rate })
	joined(t, page, display)
	// 12 × 32 KiB = 384 KiB through a 128 KiB/s door with one second's burst:
	// the last message is read once the 11th's debt is paid, (352 - 128) KiB
	// at 128 KiB/s = 1.75 s; without the cap, milliseconds
	const messages = 12
	started := time.Now()
	go func() {
		for i := range messages {
			if page.ws.WriteMessage(websocket.BinaryMessage, dataTpkt(32<<10, byte(i))) != nil {
				return
			}
		}
	}()
	got := 0
	for got < messages*(32<<10) {
		got += len(display.read(websocket.BinaryMessage))
	}
	took := time.Since(started)
	if took < 1700*time.Millisecond {
		t.Fatalf("%d bytes through a %d B/s cap in %s", got, rate, took)
	}
}

func TestUploadRateIsATokenBucketOfOneSecond(t *testing.T) {
	at := time.Unix(1000, 0)
	r := newUploadRate(1000, at)
	if wait := r.take(1000, at); wait != 0 {
		t.Fatalf("the first second's burst waited %s", wait)
	}
	if wait := r.take(500, at); wait != 500*time.Millisecond {
		t.Fatalf("500 bytes past an empty bucket wait %s", wait)
	}
	// a long pause refills one second's worth, no more
	if wait := r.take(1000, at.Add(time.Hour)); wait != 0 {
		t.Fatalf("after a pause: %s", wait)
	}
	if wait := r.take(1, at.Add(time.Hour)); wait <= 0 {
		t.Fatal("the bucket held more than one second's bytes")
	}
}
