package datasession

// The presenter tests' parts: a presenter page as a gorilla client waiting
// on the desk beside its display, the join driven from both sides, and
// Node's presenter-ended notice.

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/pdu"
)

// A presenter page's socket in these tests: the engine's /present, a gorilla client as the page.
func (h *harness) presenterPage(t *testing.T) *kiosk {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(strings.TrimSuffix(h.url, "/data")+"/present", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	_ = ws.SetReadDeadline(time.Now().Add(wait))
	return &kiosk{t, ws}
}

func (k *kiosk) present() { k.text(`{"type":"present","token":"p","publicKey":"AAAA"}`) }

// dataTpkt is one X.224 Data TPDU of n bytes in all (n ≥ 7).
func dataTpkt(n int, fill byte) []byte {
	b := bytes.Repeat([]byte{fill}, n)
	b[0], b[1], b[2], b[3], b[4], b[5], b[6] = 3, 0, byte(n>>8), byte(n), 2, 0xf0, 0x80
	return b
}

// waitingPage: a presenter page that said present and waits on h's desk.
func (h *harness) waitingPage(t *testing.T) *kiosk {
	t.Helper()
	page := h.presenterPage(t)
	page.present()
	waitFor(t, func() bool { return h.engine.desk.waitingCount() == 1 }, "the page waits on the desk")
	return page
}

// presenterHarness: a browser-source engine with its page waiting (present said) and its display opened.
func presenterHarness(t *testing.T, node *fakeNode, configure func(*Options)) (*harness, *kiosk, *kiosk) {
	t.Helper()
	node.presenter = true
	h := newHarness(t, node, configure)
	page := h.waitingPage(t)
	display := h.kiosk(t)
	display.text(`{"type":"open","token":"tok"}`)
	return h, page, display
}

// joined: the display's Connection Request reaches the page whole, its Confirm the display after secured.
func joined(t *testing.T, page, display *kiosk) {
	t.Helper()
	request := pdu.BuildConnectionRequest(pdu.ProtocolSSL|pdu.ProtocolHybrid, "")
	display.send(websocket.BinaryMessage, request)
	if got := page.read(websocket.BinaryMessage); !bytes.Equal(got, request) {
		t.Fatalf("the page got %x, not the display's request", got)
	}
	page.send(websocket.BinaryMessage, sslConfirm)
	secured := display.readJSON()
	if secured["type"] != "secured" || secured["trust"] != "presenter" || secured["protocol"] != "ssl" || secured["publicKey"] != "AAAA" {
		t.Fatalf("secured %v", secured)
	}
	if got := display.read(websocket.BinaryMessage); !bytes.Equal(got, sslConfirm) {
		t.Fatalf("confirm %x", got)
	}
}

func (d *presenterDesk) waitingCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.waiting)
}

func (n *fakeNode) presenterEnded(t *testing.T) rpc.PresenterEnded {
	t.Helper()
	return firstNotice[rpc.PresenterEnded](t, n, rpc.OpPresenterEnded)
}
