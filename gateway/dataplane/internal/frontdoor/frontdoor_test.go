package frontdoor

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const wait = 5 * time.Second

// upstream is Node's side: an HTTP server on a Unix socket that answers
// with what it saw, and echoes WebSocket messages on any other upgrade.
func upstream(t *testing.T) string {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "node.sock")
	listener, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	upgrader := websocket.Upgrader{}
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen-Forwarded-For", r.Header.Get("X-Forwarded-For"))
		w.Header().Set("X-Seen-Host", r.Host)
		if strings.HasPrefix(r.URL.Path, "/refused/") {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, "refused by node")
			return
		}
		if websocket.IsWebSocketUpgrade(r) {
			ws, err := upgrader.Upgrade(w, r, w.Header())
			if err != nil {
				return
			}
			defer ws.Close()
			for {
				kind, data, err := ws.ReadMessage()
				if err != nil || ws.WriteMessage(kind, data) != nil {
					upstreamSocketsEnded.Add(1)
					return
				}
			}
		}
		_, _ = io.WriteString(w, "node "+r.URL.RequestURI())
	})}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
	return socket
}

type sessionCall struct {
	id      string
	ws      *websocket.Conn
	granted func()
}

func open(t *testing.T, configure func(*Options)) (*FrontDoor, chan sessionCall) {
	t.Helper()
	sessions := make(chan sessionCall, 8)
	options := Options{
		Host: "127.0.0.1", UpstreamSocket: upstream(t), Subprotocol: "lanterna.v1",
		MaxConnections: 100, PerAddressConnections: 100, MaxPendingSockets: 100,
		TLSHandshake: wait, HTTPHeaders: wait, HTTPRequest: wait, AdmitTimeout: wait,
		Admit: func(context.Context, string, string, string) (int, error) { return 0, nil },
		Session: func(ws *websocket.Conn, id, _ string, granted func()) {
			done := make(chan struct{})
			sessions <- sessionCall{id: id, ws: ws, granted: func() { granted(); close(done) }}
			// held until the test grants it (or the test ends)
			select {
			case <-done:
			case <-time.After(wait):
			}
			_ = ws.Close()
		},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if configure != nil {
		configure(&options)
	}
	door, err := Listen(context.Background(), options)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = door.Close() })
	return door, sessions
}

func address(door *FrontDoor) string { return "127.0.0.1:" + strconv.Itoa(door.Port()) }

// dialTCP: a plain TCP connection to door, closed at the test's end at the latest.
func dialTCP(t *testing.T, door *FrontDoor) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", address(door))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// droppedAtOnce: the front door closes the connection without a word.
func droppedAtOnce(t *testing.T, conn net.Conn) bool {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	_, err := conn.Read(make([]byte, 1))
	return errors.Is(err, io.EOF) || (err != nil && !isTimeout(err))
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

func TestConnectionsOverTheLimitsAreDroppedAtAccept(t *testing.T) {
	for name, configure := range map[string]func(*Options){
		"per address": func(o *Options) { o.PerAddressConnections = 1 },
		"in all":      func(o *Options) { o.MaxConnections = 1 },
	} {
		t.Run(name, func(t *testing.T) {
			door, _ := open(t, configure)
			first := dialTCP(t, door)
			// the first is served (a request answered proves it was counted first)
			if _, err := io.WriteString(first, "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			reply := make([]byte, 12)
			if _, err := io.ReadFull(first, reply); err != nil || string(reply) != "HTTP/1.1 200" {
				t.Fatalf("first: %q %v", reply, err)
			}
			second := dialTCP(t, door)
			if !droppedAtOnce(t, second) {
				t.Fatal("the second connection was kept")
			}
			_ = first.Close()
			// its place comes back
			deadline := time.Now().Add(wait)
			for door.OpenConnections() != 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if door.OpenConnections() != 0 {
				t.Fatalf("%d connections still counted", door.OpenConnections())
			}
		})
	}
}

func TestRequestsGoToNodeWithTheClientAppendedToXForwardedFor(t *testing.T) {
	door, _ := open(t, nil)
	request, _ := http.NewRequest(http.MethodGet, "http://"+address(door)+"/v1/sessions/abc/data?x=1", nil)
	request.Host = "projector.example"
	request.Header.Set("X-Forwarded-For", "10.0.0.9")
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(response.Body)
	_ = response.Body.Close()
	// a data path without an upgrade is Node's too
	if string(body) != "node /v1/sessions/abc/data?x=1" || response.Header.Get("X-Seen-Forwarded-For") != "10.0.0.9, 127.0.0.1" || response.Header.Get("X-Seen-Host") != "projector.example" {
		t.Fatalf("%q %v", body, response.Header)
	}
}

// nodesSocket: a WebSocket through door to path that Node's side answered
// (the test upstream echoes what it saw forwarded), closed at the test's end.
func nodesSocket(t *testing.T, door *FrontDoor, path string) *websocket.Conn {
	t.Helper()
	ws, response, err := websocket.DefaultDialer.Dial("ws://"+address(door)+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	if response.Header.Get("X-Seen-Forwarded-For") != "127.0.0.1" {
		t.Fatalf("not Node's answer: %v", response.Header)
	}
	return ws
}

func TestOtherUpgradesPassThroughToNode(t *testing.T) {
	door, _ := open(t, nil)
	ws := nodesSocket(t, door, "/v1/displays/d1/control")
	_ = ws.SetReadDeadline(time.Now().Add(wait))
	if err := ws.WriteMessage(websocket.TextMessage, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if _, data, err := ws.ReadMessage(); err != nil || string(data) != "hello" {
		t.Fatalf("%q %v", data, err)
	}
}

// upstreamSocketsEnded counts the upstream's echo sockets that saw their end.
var upstreamSocketsEnded atomic.Int64

func TestAnUpgradeNodeRefusesGetsNodesAnswerAndAClientThatLeavesEndsNodesSocket(t *testing.T) {
	door, _ := open(t, nil)
	_, response, err := websocket.DefaultDialer.Dial("ws://"+address(door)+"/refused/control", nil)
	if err == nil || response == nil || response.StatusCode != http.StatusForbidden {
		t.Fatalf("refused upgrade: %v %v", err, response)
	}
	body, _ := io.ReadAll(response.Body)
	if string(body) != "refused by node" {
		t.Fatalf("body %q", body)
	}
	// A big message goes through the small copy buffers whole, both ways.
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+address(door)+"/v1/displays/d1/control", nil)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("lanterna ", 10_000)
	_ = ws.SetReadDeadline(time.Now().Add(wait))
	if err := ws.WriteMessage(websocket.TextMessage, []byte(big)); err != nil {
		t.Fatal(err)
	}
	if _, data, err := ws.ReadMessage(); err != nil || string(data) != big {
		t.Fatalf("%d bytes back, %v", len(data), err)
	}
	ended := upstreamSocketsEnded.Load()
	_ = ws.NetConn().Close()
	deadline := time.Now().Add(wait)
	for upstreamSocketsEnded.Load() == ended {
		if time.Now().After(deadline) {
			t.Fatal("node's socket outlived the client's")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestDataUpgradesAreAdmittedByNodeAndHeldAgainstThePendingBudget(t *testing.T) {
	admitted := make(chan string, 8)
	door, sessions := open(t, func(o *Options) {
		o.MaxPendingSockets = 1
		o.Admit = func(_ context.Context, host, origin, client string) (int, error) {
			admitted <- host + " " + origin + " " + client
			if origin == "https://foreign.example" {
				return http.StatusForbidden, nil
			}
			return 0, nil
		}
	})
	url := "ws://" + address(door) + "/v1/sessions/s-1/data"
	header := http.Header{"Origin": {"https://foreign.example"}}
	if _, response, err := websocket.DefaultDialer.Dial(url, header); err == nil || response == nil || response.StatusCode != http.StatusForbidden {
		t.Fatalf("a refused upgrade went on: %v", err)
	}
	if got := <-admitted; got != "127.0.0.1:"+strconv.Itoa(door.Port())+" https://foreign.example 127.0.0.1" {
		t.Fatalf("admit asked %q", got)
	}
	dialer := websocket.Dialer{Subprotocols: []string{"other", "lanterna.v1"}}
	first, response, err := dialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if response.Header.Get("Sec-WebSocket-Protocol") != "lanterna.v1" {
		t.Fatalf("subprotocol %q", response.Header.Get("Sec-WebSocket-Protocol"))
	}
	call := <-sessions
	if call.id != "s-1" || door.PendingSockets() != 1 {
		t.Fatalf("session %q, %d pending", call.id, door.PendingSockets())
	}
	// the pool is full: a newcomer is not refused, the oldest pending socket gives its place up (1013 crowded-out)
	second, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatalf("a newcomer was refused: %v", err)
	}
	defer second.Close()
	_ = first.SetReadDeadline(time.Now().Add(wait))
	if _, _, err := first.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseTryAgainLater) || !strings.Contains(err.Error(), "crowded-out") {
		t.Fatalf("the oldest pending socket was not closed 1013 crowded-out: %v", err)
	}
	next := <-sessions
	if door.PendingSockets() != 1 || door.EvictedPendingSockets() != 1 {
		t.Fatalf("%d pending, %d evicted", door.PendingSockets(), door.EvictedPendingSockets())
	}
	call.granted()
	next.granted()
	// granted: its place is free
	if door.PendingSockets() != 0 {
		t.Fatalf("%d pending after the grant", door.PendingSockets())
	}
}

func TestAClientOfferingOnlyOtherSubprotocolsGetsNone(t *testing.T) {
	door, sessions := open(t, nil)
	dialer := websocket.Dialer{Subprotocols: []string{"other"}}
	ws, response, err := dialer.Dial("ws://"+address(door)+"/v1/sessions/s/data", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if response.Header.Get("Sec-WebSocket-Protocol") != "" {
		t.Fatalf("subprotocol %q", response.Header.Get("Sec-WebSocket-Protocol"))
	}
	(<-sessions).granted()
}

func TestASlowTLSHandshakeIsCutAtItsDeadline(t *testing.T) {
	certificateServer := httptest.NewUnstartedServer(nil)
	certificateServer.StartTLS()
	certificate := certificateServer.TLS.Certificates[0]
	certificateServer.Close()
	door, _ := open(t, func(o *Options) {
		o.Certificate = &certificate
		o.TLSHandshake = 50 * time.Millisecond
	})
	// a TLS client is served
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	response, err := client.Get("https://" + address(door) + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(response.Body)
	_ = response.Body.Close()
	if string(body) != "node /x" || !strings.Contains(response.Header.Get("X-Seen-Forwarded-For"), "127.0.0.1") {
		t.Fatalf("%q", body)
	}
	// one that never starts its handshake is dropped
	silent := dialTCP(t, door)
	if !droppedAtOnce(t, silent) {
		t.Fatal("a silent connection outlived the handshake deadline")
	}
}

func TestCanonicalAddresses(t *testing.T) {
	for in, want := range map[string]string{"127.0.0.1:80": "127.0.0.1", "[::ffff:10.1.2.3]:80": "10.1.2.3", "[fe80::1%eth0]:1": "fe80::1", "[::1]:5": "::1"} {
		if got := CanonicalAddressString(in); got != want {
			t.Errorf("%s: %s", in, got)
		}
	}
}

func TestPresenterUpgradesAreServedHereAfterNodeAdmitsThemAndGoToNodeWithoutARunner(t *testing.T) {
	presenters := make(chan string, 1)
	admitted := make(chan string, 1)
	door, sessions := open(t, func(o *Options) {
		o.Admit = func(_ context.Context, host, _, _ string) (int, error) {
			admitted <- host
			return 0, nil
		}
		o.Presenter = func(ws *websocket.Conn, id, _ string, granted func()) {
			granted()
			presenters <- id
			_ = ws.Close()
		}
	})
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+address(door)+"/v1/sessions/s-9/present", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = ws.Close()
	select {
	case id := <-presenters:
		if id != "s-9" {
			t.Fatalf("the presenter runner got %q", id)
		}
	case <-sessions:
		t.Fatal("a presenter socket went to the data socket runner")
	case <-time.After(wait):
		t.Fatal("no presenter runner")
	}
	if host := <-admitted; host != address(door) {
		t.Fatalf("admitted %q", host)
	}
	// a front door without a presenter runner passes the upgrade on to Node (its echo answers)
	plain, _ := open(t, nil)
	nodesSocket(t, plain, "/v1/sessions/s-9/present")
}
