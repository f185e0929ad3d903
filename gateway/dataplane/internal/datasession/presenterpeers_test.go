package datasession

// A presenter page and its display on sibling data planes (presenterpeers.go).

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/pdu"
)

func TestAPresenterPageAndItsDisplayOnSiblingDataPlanesMeetOverTheirPeerSockets(t *testing.T) {
	dir := t.TempDir()
	for _, pageFirst := range []bool{true, false} {
		name := "the display first"
		if pageFirst {
			name = "the page first"
		}
		t.Run(name, func(t *testing.T) {
			pageNode, displayNode := &fakeNode{presenter: true}, &fakeNode{presenter: true}
			withPeers := func(o *Options) { o.Relay.PresenterBytesPerSecond = 1 << 20 }
			pageSide, displaySide := newHarness(t, pageNode, withPeers), newHarness(t, displayNode, withPeers)
			for _, h := range []*harness{pageSide, displaySide} {
				listener, err := h.engine.ListenPeers(dir)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = listener.Close() })
			}
			page := pageSide.presenterPage(t)
			display := displaySide.kiosk(t)
			request := pdu.BuildConnectionRequest(pdu.ProtocolSSL|pdu.ProtocolHybrid, "")
			if pageFirst {
				page.present()
				waitFor(t, func() bool { return pageSide.engine.desk.waitingCount() == 1 }, "the page waits on its own desk")
			}
			display.text(`{"type":"open","token":"tok"}`)
			display.send(websocket.BinaryMessage, request)
			if !pageFirst {
				time.Sleep(3 * peerPoll)
				page.present()
			}
			if got := page.read(websocket.BinaryMessage); !bytes.Equal(got, request) {
				t.Fatalf("the page got %x, not the display's request", got)
			}
			page.send(websocket.BinaryMessage, sslConfirm)
			if secured := display.readJSON(); secured["type"] != "secured" || secured["trust"] != "presenter" || secured["publicKey"] != "AAAA" {
				t.Fatalf("secured %v", secured)
			}
			if got := display.read(websocket.BinaryMessage); !bytes.Equal(got, sslConfirm) {
				t.Fatalf("confirm %x", got)
			}
			up, down := dataTpkt(100, 1), dataTpkt(2000, 2)
			display.send(websocket.BinaryMessage, up)
			if got := page.read(websocket.BinaryMessage); !bytes.Equal(got, up) {
				t.Fatalf("the page got %x", got)
			}
			page.send(websocket.BinaryMessage, down)
			if got := display.read(websocket.BinaryMessage); !bytes.Equal(got, down) {
				t.Fatalf("the display got %x", got)
			}
			// garbage from the page: its own error, said by its own data plane; the display's server-error
			page.send(websocket.BinaryMessage, []byte{3, 0, 0x03, 0xe8, 1, 2})
			page.expectError(sessionerr.PhaseRelay, sessionerr.CodeBadMessage, 4400)
			display.expectError(sessionerr.PhaseRelay, sessionerr.CodeServerError, 4502)
			if got := pageNode.presenterEnded(t); got.Error == nil || got.Error.Code != sessionerr.CodeBadMessage {
				t.Fatalf("the page's data plane told its node %+v", got)
			}
		})
	}
}

func TestASiblingAskingForAPageThatIsNotThereGetsNoAndTheWaitingPageStays(t *testing.T) {
	dir := t.TempDir()
	node := &fakeNode{presenter: true}
	h := newHarness(t, node, nil)
	listener, err := h.engine.ListenPeers(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = listener.Close() })
	h.waitingPage(t)
	other := &session{id: "another", engine: h.engine}
	if p := h.engine.askSibling(context.Background(), h.engine.peers.Load().self, other); p != nil {
		t.Fatal("a sibling handed over a page for another session")
	}
	if h.engine.desk.waitingCount() != 1 {
		t.Fatal("the waiting page left the desk")
	}
}
