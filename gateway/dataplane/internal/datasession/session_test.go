package datasession

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
	deadline := time.After(wait)
	for {
		n.mu.Lock()
		for _, got := range n.notices {
			if got.op == rpc.OpEnded {
				n.mu.Unlock()
				return got.params.(rpc.Ended)
			}
		}
		n.mu.Unlock()
		select {
		case <-n.noticed:
		case <-deadline:
			t.Fatal("no ended notification")
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
	node := &fakeNode{}
	node.target = rdpServer(t, sslConfirm, nil, echo)
	k := newHarness(t, node, nil).kiosk(t)
	k.secure()
	k.text(`{"type":"open","token":"again"}`)
	k.expectError("relay", "bad-message", 4400)
	if ended := node.ended(t); ended.Reason != rpc.ReasonError || ended.Error.Code != "bad-message" {
		t.Fatalf("ended %+v", ended)
	}
}

func TestAMalformedPduFromTheDisplayIsPduInvalid(t *testing.T) {
	node := &fakeNode{}
	node.target = rdpServer(t, sslConfirm, nil, echo)
	k := newHarness(t, node, nil).kiosk(t)
	k.secure()
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
	node := &fakeNode{}
	node.target = rdpServer(t, sslConfirm, nil, echo)
	k := newHarness(t, node, func(o *Options) { o.Relay.IdleTimeoutMs = 50 }).kiosk(t)
	k.secure()
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

// bigTPKT is a TPKT of n bytes (n ≤ 65535) filled with fill after its X.224 Data header.
func bigTPKT(n int, fill byte) []byte {
	frame := bytes.Repeat([]byte{fill}, n)
	copy(frame, []byte{0x03, 0x00, byte(n >> 8), byte(n), 0x02, 0xf0, 0x80})
	return frame
}

func TestADisplayThatStopsReadingPausesItsServerLosesNothingAndHoldsUpNoOtherSession(t *testing.T) {
	node := &fakeNode{}
	node.target = rdpServer(t, sslConfirm, nil, echo)
	h := newHarness(t, node, func(o *Options) {
		o.Relay.HighWaterBytes, o.Relay.LowWaterBytes = 64<<10, 16<<10
	})
	stalled := h.kiosk(t)
	stalled.secure()
	h.engine.mu.Lock()
	session := h.engine.byID["s1"]
	h.engine.mu.Unlock()
	if session == nil || !session.pump.looped.Load() {
		t.Fatal("the relaying session's legs are not on the event loop")
	}
	// far more than the sockets hold (loopback's buffers grow to megabytes):
	// the echo backs up to the display, which reads nothing yet
	var sent []byte
	for i := range 2000 {
		sent = append(sent, bigTPKT(16000, byte(i))...)
	}
	sending := make(chan error, 1)
	go func() {
		for offset := 0; offset < len(sent); offset += 16000 {
			if err := stalled.ws.WriteMessage(websocket.BinaryMessage, sent[offset:offset+16000]); err != nil {
				sending <- err
				return
			}
		}
		sending <- nil
	}()
	deadline := time.Now().Add(wait)
	for session.figures.totals().pauses == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the display's backlog never paused the server leg")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// held there: the backlogs stay near their mark (the display is not read
	// while the server's is pressed, the server not while the display's is),
	// and so the display's writes wait
	most := 0
	for range 20 {
		most = max(most, session.display.socket.Backlog(), session.server.socket.Backlog())
		time.Sleep(10 * time.Millisecond)
	}
	if most > 128<<10 {
		t.Fatalf("a backlog of %d bytes past a 64 KiB mark", most)
	}
	select {
	case err := <-sending:
		t.Fatalf("the display wrote everything while nothing was read back (%v)", err)
	default:
	}
	// the loop serves others meanwhile
	other := h.kiosk(t)
	other.secure()
	other.send(websocket.BinaryMessage, tpkt)
	if got := other.read(websocket.BinaryMessage); !bytes.Equal(got, tpkt) {
		t.Fatalf("the other session's echo: %x", got)
	}
	// the display reads again: everything arrives, in order
	var got []byte
	_ = stalled.ws.SetReadDeadline(time.Now().Add(3 * wait))
	for len(got) < len(sent) {
		got = append(got, stalled.read(websocket.BinaryMessage)...)
	}
	if !bytes.Equal(got, sent) {
		t.Fatalf("the display read %d bytes, not the %d sent in order", len(got), len(sent))
	}
	if err := <-sending; err != nil {
		t.Fatal(err)
	}
	if backlog := session.display.socket.Backlog() + session.server.socket.Backlog(); backlog != 0 {
		t.Fatalf("%d bytes still kept after everything arrived", backlog)
	}
}

func TestTheDisplaysWebSocketFramesAreReadAsGorillaReadsThem(t *testing.T) {
	_, node, k := relayingEcho(t, nil)
	// a protocol-level ping is answered with its payload
	pong := make(chan string, 1)
	k.ws.SetPongHandler(func(data string) error { pong <- data; return nil })
	if err := k.ws.WriteControl(websocket.PingMessage, []byte("are you there"), time.Now().Add(wait)); err != nil {
		t.Fatal(err)
	}
	k.send(websocket.BinaryMessage, tpkt)
	if got := k.read(websocket.BinaryMessage); !bytes.Equal(got, tpkt) {
		t.Fatalf("echo %x", got)
	}
	select {
	case data := <-pong:
		if data != "are you there" {
			t.Fatalf("pong %q", data)
		}
	default:
		t.Fatal("no pong before the echo")
	}
	// a message too big for the relay is closed 1009, as gorilla's read limit does
	k.send(websocket.BinaryMessage, make([]byte, 300<<10))
	if code, _ := k.closed(); code != websocket.CloseMessageTooBig {
		t.Fatalf("closed %d", code)
	}
	if ended := node.ended(t); ended.Reason != rpc.ReasonClientClosed {
		t.Fatalf("ended %+v", ended)
	}
}
