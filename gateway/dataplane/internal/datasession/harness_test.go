package datasession

// The tests' parts: Node as a fake that records what it is told, a loopback
// TLS RDP server, an engine behind an HTTP test server whose sockets the
// event loop can take over (as the front door's), and a gorilla client as
// the display (or the presenter page).

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/pdu"
	"lanterna/dataplane/rawsocket"
)

const wait = 5 * time.Second

// a TPKT of 7 bytes: an X.224 Data TPDU header and nothing else
var tpkt = []byte{0x03, 0x00, 0x00, 0x07, 0x02, 0xf0, 0x80}

var sslConfirm = pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmSuccess, SelectedProtocol: pdu.ProtocolSSL})

var errorsTable = map[string]rpc.ErrorEntry{
	"bad-message":  {Message: "the display sent something the gateway does not understand", Close: 4400},
	"unauthorized": {Message: "this display is not authorised", Close: 4401}, "timeout": {Message: "timeout", Close: 4408},
	"pdu-invalid": {Message: "a malformed RDP message", Close: 4400}, "gateway-shutdown": {Message: "the gateway is restarting", Close: 1001},
	"negotiation-failed": {Message: "negotiation", Close: 4502}, "server-error": {Message: "server", Close: 4502},
	"gateway-busy": {Message: "busy", Close: 1013}, "internal": {Message: "internal", Close: 1011},
	"x224-invalid": {Message: "not rdp", Close: 4502}, "pdu-too-large": {Message: "too large", Close: 1009},
}

// fakeNode grants every session (or refuses with openRefusal), resolves to the test's server and trusts it.
type fakeNode struct {
	target      rpc.ResolveAnswer
	openRefusal *sessionerr.Error
	// presenter: grants are a browser source's; presentRefusal refuses a presenter's present; presenterWaitMs: its wait (0: 5 s)
	presenter       bool
	presentRefusal  *sessionerr.Error
	presenterWaitMs int
	mu              sync.Mutex
	notices         []notice
	noticed         chan struct{}
}

type notice struct {
	op     string
	params any
}

func (n *fakeNode) Open(context.Context, rpc.OpenRequest) (rpc.OpenAnswer, *sessionerr.Error) {
	if n.openRefusal != nil {
		return rpc.OpenAnswer{}, n.openRefusal
	}
	return rpc.OpenAnswer{DisplayID: "d", Presenter: n.presenter}, nil
}

func (n *fakeNode) Present(context.Context, rpc.PresentRequest) (rpc.PresentAnswer, *sessionerr.Error) {
	if n.presentRefusal != nil {
		return rpc.PresentAnswer{}, n.presentRefusal
	}
	waitMs := n.presenterWaitMs
	if waitMs == 0 {
		waitMs = 5000
	}
	return rpc.PresentAnswer{WaitMs: waitMs, Certificates: []string{}, PublicKey: "AAAA"}, nil
}

func (n *fakeNode) Resolve(context.Context, rpc.ResolveRequest) (rpc.ResolveAnswer, *sessionerr.Error) {
	return n.target, nil
}

func (n *fakeNode) Certificate(context.Context, rpc.CertificateRequest) (string, *sessionerr.Error) {
	return "insecure", nil
}

func (n *fakeNode) Notify(op string, params any) {
	n.mu.Lock()
	n.notices = append(n.notices, notice{op, params})
	n.mu.Unlock()
	select {
	case n.noticed <- struct{}{}:
	default:
	}
}

// ended waits for the ended notification.
func (n *fakeNode) ended(t *testing.T) rpc.Ended {
	t.Helper()
	return firstNotice[rpc.Ended](t, n, rpc.OpEnded)
}

// firstNotice waits for n's first notification of op and returns its params.
func firstNotice[P any](t *testing.T, n *fakeNode, op string) P {
	t.Helper()
	deadline := time.After(wait)
	for {
		n.mu.Lock()
		for _, got := range n.notices {
			if got.op == op {
				n.mu.Unlock()
				return got.params.(P)
			}
		}
		n.mu.Unlock()
		select {
		case <-n.noticed:
		case <-deadline:
			t.Fatalf("no %s notification", op)
		}
	}
}

func (n *fakeNode) ops() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var ops []string
	for _, got := range n.notices {
		ops = append(ops, got.op)
	}
	return ops
}

func contains(values []string, want string) bool {
	for _, value := range values {
		if value == want {
			return true
		}
	}
	return false
}

// rdpServer answers the Connection Request with confirm (after hold, when
// given), secures TLS when the confirm succeeded, then runs serve.
func rdpServer(t *testing.T, confirm []byte, hold chan struct{}, serve func(*tls.Conn)) rpc.ResolveAnswer {
	t.Helper()
	certificateServer := httptest.NewUnstartedServer(nil)
	certificateServer.StartTLS()
	certificate := certificateServer.TLS.Certificates[0]
	certificateServer.Close()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = listener.Close() })
	go func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				buffer := make([]byte, 1024)
				if _, err := conn.Read(buffer); err != nil {
					return
				}
				if hold != nil {
					<-hold
				}
				if _, err := conn.Write(confirm); err != nil {
					return
				}
				secured := tls.Server(conn, &tls.Config{Certificates: []tls.Certificate{certificate}})
				if secured.Handshake() != nil {
					return
				}
				serve(secured)
			}()
		}
	}()
	return rpc.ResolveAnswer{Host: "127.0.0.1", Port: listener.Addr().(*net.TCPAddr).Port, Address: "127.0.0.1"}
}

func echo(conn *tls.Conn) { _, _ = io.Copy(conn, conn) }

type harness struct {
	engine *Engine
	node   *fakeNode
	url    string
}

func newHarness(t *testing.T, node *fakeNode, configure func(*Options)) *harness {
	t.Helper()
	node.noticed = make(chan struct{}, 1)
	options := Options{
		Relay:             rpc.Relay{MaxFrameBytes: 256 << 10},
		Timeouts:          rpc.Timeouts{HelloMs: 5000, RequestMs: 5000, ConnectMs: 5000, ConfirmMs: 5000, TLSMs: 5000},
		MaxJSONFrameBytes: 16 << 10, Errors: errorsTable, CloseGrace: time.Second,
	}
	if configure != nil {
		configure(&options)
	}
	engine := NewEngine(options, node, slog.New(slog.NewTextHandler(io.Discard, nil)))
	upgrader := websocket.Upgrader{Subprotocols: []string{"lanterna.v1"}}
	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		if strings.HasSuffix(r.URL.Path, "/present") {
			engine.ServePresenter(ws, "s1", "127.0.0.1", func() {})
			return
		}
		engine.Serve(ws, "s1", "127.0.0.1", func() {})
	}))
	// as the front door's: sockets the relay's event loop can take over
	server.Listener = loopSockets{server.Listener}
	server.Start()
	t.Cleanup(server.Close)
	return &harness{engine: engine, node: node, url: "ws" + strings.TrimPrefix(server.URL, "http") + "/v1/sessions/s1/data"}
}

// relayingEcho: a session secured to an echoing server, its kiosk, the engine and Node's view.
func relayingEcho(t *testing.T, configure func(*Options)) (*harness, *fakeNode, *kiosk) {
	t.Helper()
	node := &fakeNode{}
	node.target = rdpServer(t, sslConfirm, nil, echo)
	h := newHarness(t, node, configure)
	k := h.kiosk(t)
	k.secure()
	return h, node, k
}

type loopSockets struct{ net.Listener }

func (l loopSockets) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return edgeloop.NewSocket(rawsocket.Wrap(conn)), nil
}

type kiosk struct {
	t  *testing.T
	ws *websocket.Conn
}

func (h *harness) kiosk(t *testing.T) *kiosk {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(h.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	_ = ws.SetReadDeadline(time.Now().Add(wait))
	return &kiosk{t, ws}
}

func (k *kiosk) send(kind int, data []byte) {
	k.t.Helper()
	if err := k.ws.WriteMessage(kind, data); err != nil {
		k.t.Fatal(err)
	}
}

func (k *kiosk) text(text string) { k.send(websocket.TextMessage, []byte(text)) }

func (k *kiosk) read(kind int) []byte {
	k.t.Helper()
	got, data, err := k.ws.ReadMessage()
	if err != nil {
		k.t.Fatalf("reading: %v", err)
	}
	if got != kind {
		k.t.Fatalf("message kind %d, not %d: %q", got, kind, data)
	}
	return data
}

func (k *kiosk) readJSON() map[string]any {
	k.t.Helper()
	var value map[string]any
	if err := json.Unmarshal(k.read(websocket.TextMessage), &value); err != nil {
		k.t.Fatal(err)
	}
	return value
}

// closed reads until the close frame and returns its code and reason.
func (k *kiosk) closed() (int, string) {
	k.t.Helper()
	for {
		_, _, err := k.ws.ReadMessage()
		var closeErr *websocket.CloseError
		if errors.As(err, &closeErr) {
			return closeErr.Code, closeErr.Text
		}
		if err != nil {
			k.t.Fatalf("no close frame: %v", err)
		}
	}
}

// secure plays a kiosk up to the relay: open, the request, secured and the Confirm.
func (k *kiosk) secure() map[string]any {
	k.t.Helper()
	k.text(`{"type":"open","token":"tok"}`)
	k.send(websocket.BinaryMessage, pdu.BuildConnectionRequest(pdu.ProtocolSSL|pdu.ProtocolHybrid, ""))
	secured := k.readJSON()
	if confirm := k.read(websocket.BinaryMessage); !bytes.Equal(confirm, sslConfirm) {
		k.t.Fatalf("confirm %x", confirm)
	}
	return secured
}

func (k *kiosk) expectError(phase, code string, closeCode int) map[string]any {
	k.t.Helper()
	message := k.readJSON()
	if message["type"] != "error" || message["phase"] != phase || message["code"] != code || message["message"] == "" {
		k.t.Fatalf("error message %v, expected %s %s", message, phase, code)
	}
	if gotCode, reason := k.closed(); gotCode != closeCode || reason != code {
		k.t.Fatalf("closed %d %q, expected %d %q", gotCode, reason, closeCode, code)
	}
	return message
}

func waitFor(t *testing.T, check func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", wait, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
