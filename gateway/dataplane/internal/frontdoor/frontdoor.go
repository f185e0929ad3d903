// Package frontdoor is the data plane's listener on the gateway's port
// (docs/native-data-plane.md, "Front door"): connection limits at accept,
// the kiosk-facing TLS, data-socket upgrades served here after Node admits
// them, and everything else passed to the Node worker over its Unix socket.
package frontdoor

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// dataPath and presentPath are Node's patterns for a data socket and a presenter socket (gatewayServer.ts).
var (
	dataPath    = regexp.MustCompile(`^/v1/sessions/([A-Za-z0-9_-]{1,64})/data$`)
	presentPath = regexp.MustCompile(`^/v1/sessions/([A-Za-z0-9_-]{1,64})/present$`)
)

// Node's HTTP server closes idle keep-alive connections after this (its keepAliveTimeout).
const keepAliveIdle = 5 * time.Second

// Options are what the front door needs from the configuration and the rest of the process.
type Options struct {
	Host      string
	Port      int
	ReusePort bool
	// Certificate, when set, makes the front door TLS.
	Certificate *tls.Certificate
	// UpstreamSocket is Node's Unix socket.
	UpstreamSocket string
	Subprotocol    string
	// Limits: 0 means none.
	MaxConnections, PerAddressConnections, MaxPendingSockets int
	TLSHandshake, HTTPHeaders, HTTPRequest                   time.Duration
	// WriteStall bounds every write on a client's connection that waits for
	// the client's room (timeouts.writeMs; 0: none): the connection is cut.
	WriteStall time.Duration
	// MaxHeaderBytes bounds a request's head (Node's maxHeaderSize, the same number); 0: Go's 1 MiB.
	MaxHeaderBytes int
	// AdmitTimeout bounds Node's admit answer.
	AdmitTimeout time.Duration
	// Admit asks Node whether a data-socket upgrade may go on: 0, or the HTTP status to refuse it with.
	Admit func(ctx context.Context, host, origin, clientAddress string) (status int, err error)
	// Session runs one upgraded data socket to its end; granted gives the
	// pending place back (it is given back at the end anyway).
	Session func(ws *websocket.Conn, sessionID, clientAddress string, granted func())
	// Presenter runs one upgraded presenter socket (a browser-source session's
	// server leg) to its end, as Session a data socket; nil: such upgrades go to Node.
	Presenter func(ws *websocket.Conn, sessionID, clientAddress string, granted func())
	Log       *slog.Logger

	// PerSourcePendingSockets: of the pending data sockets, those from one IPv4 address or IPv6 /64 (0: no share).
	PerSourcePendingSockets int
	// PerNetworkConnections: open connections from one IPv6 /64 (0: none).
	PerNetworkConnections int
}

// FrontDoor is the listening front door.
type FrontDoor struct {
	options  Options
	listener *gateListener
	server   *http.Server
	limits   *connectionLimits
	pending  *pendingPool
	proxy    *httputil.ReverseProxy
	upgrades *upgradeProxy
	upgrader websocket.Upgrader
	draining atomic.Bool
	served   chan error
}

// Listen binds the port and starts serving; Port says which one it got.
func Listen(ctx context.Context, options Options) (*FrontDoor, error) {
	raw, err := listen(ctx, options.Host, options.Port, options.ReusePort)
	if err != nil {
		return nil, err
	}
	f := &FrontDoor{options: options, limits: newConnectionLimits(options.MaxConnections, options.PerAddressConnections), served: make(chan error, 1)}
	f.pending = newPendingPool(options.MaxPendingSockets, options.PerSourcePendingSockets)
	f.limits.perNetwork = options.PerNetworkConnections
	var tlsConfig *tls.Config
	if options.Certificate != nil {
		// HTTP/1.1 only: a WebSocket upgrade is not an HTTP/2 request
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{*options.Certificate}, NextProtos: []string{"http/1.1"}}
	}
	f.listener = newGateListener(raw, f.limits, tlsConfig, options.TLSHandshake, options.WriteStall, options.Log)
	f.proxy = newProxy(options.UpstreamSocket, options.Certificate != nil, options.Log)
	f.upgrades = newUpgradeProxy(options.UpstreamSocket, options.Certificate != nil, options.WriteStall, options.Log)
	f.upgrader = websocket.Upgrader{
		// a client that offers subprotocols and not ours gets none back, and
		// fails the handshake itself, as with Node's ws and its handleProtocols
		Subprotocols: []string{options.Subprotocol},
		// Node checked the origin in admit
		CheckOrigin: func(*http.Request) bool { return true },
		// one TLS record's plaintext and a frame header: a message up to it is one write
		WriteBufferSize: 16<<10 + 14,
		WriteBufferPool: &sync.Pool{},
	}
	f.server = &http.Server{
		Handler:           f,
		ReadHeaderTimeout: options.HTTPHeaders,
		ReadTimeout:       options.HTTPRequest,
		// no WriteTimeout: it would end a long answer (server-sent events) as
		// a whole; each write has its own deadline instead (the listener's sockets)
		MaxHeaderBytes: maxHeaderBytes(options.MaxHeaderBytes),
		IdleTimeout:    keepAliveIdle,
		TLSNextProto:   map[string]func(*http.Server, *tls.Conn, http.Handler){},
		ErrorLog:       slog.NewLogLogger(options.Log.Handler(), slog.LevelDebug),
	}
	go func() { f.served <- f.server.Serve(f.listener) }()
	return f, nil
}

// Port is the TCP port the front door listens on.
func (f *FrontDoor) Port() int {
	return f.listener.Addr().(*net.TCPAddr).Port
}

// OpenConnections counts the TCP connections held now.
func (f *FrontDoor) OpenConnections() int { return f.limits.open() }

// PendingSockets counts the data sockets upgraded and not yet granted.
func (f *FrontDoor) PendingSockets() int { return f.pending.count() }

// EvictedPendingSockets counts the pending data sockets closed to make room, since start.
func (f *FrontDoor) EvictedPendingSockets() uint64 { return f.pending.evicted.Load() }

// StopAccepting closes the listener (a drain): open requests and sockets go
// on, and data-socket upgrades are refused with 503.
func (f *FrontDoor) StopAccepting() {
	f.draining.Store(true)
	_ = f.listener.Close()
	// idle keep-alive connections close, as Node's server.close() closes them
	f.server.SetKeepAlivesEnabled(false)
}

// Close ends every connection the HTTP server still holds (not the data sockets, which their sessions end).
func (f *FrontDoor) Close() error {
	f.StopAccepting()
	return f.server.Close()
}

func (f *FrontDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	upgrade := r.Header.Get("Upgrade") != "" && headerHasToken(r.Header, "Connection", "upgrade")
	if upgrade {
		// the request's deadline is for its headers and body, not for the socket it becomes
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		// as Node's URL pathname: percent-escapes are not decoded
		if match := dataPath.FindStringSubmatch(r.URL.EscapedPath()); match != nil {
			f.serveData(w, r, match[1], f.options.Session)
			return
		}
		// the page's socket and its display's data socket meet in this process (datasession's presenter desk)
		if match := presentPath.FindStringSubmatch(r.URL.EscapedPath()); match != nil && f.options.Presenter != nil {
			f.serveData(w, r, match[1], f.options.Presenter)
			return
		}
		f.upgrades.ServeHTTP(w, r)
		return
	}
	f.proxy.ServeHTTP(w, r)
}

// serveData serves a data socket's or a presenter socket's upgrade: Node's
// admit, a pending place, the subprotocol, then run the socket.
func (f *FrontDoor) serveData(w http.ResponseWriter, r *http.Request, sessionID string, run func(ws *websocket.Conn, sessionID, clientAddress string, granted func())) {
	log := f.options.Log
	clientAddress := CanonicalAddressString(r.RemoteAddr)
	if f.draining.Load() {
		refuse(w, http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), f.options.AdmitTimeout)
	status, err := f.options.Admit(ctx, r.Host, r.Header.Get("Origin"), clientAddress)
	cancel()
	if err != nil {
		log.Error("no admit answer from node: upgrade refused", "err", err.Error(), "sessionId", sessionID)
		status = http.StatusServiceUnavailable
	}
	if status != 0 {
		refuse(w, status)
		return
	}
	// no upgrade is refused for want of a place: a stranger's oldest pending socket gives its place up (pending.go)
	place := f.pending.admit(clientAddress)
	defer place.release()
	ws, err := f.upgrader.Upgrade(w, r, nil)
	if err != nil {
		// the upgrader answered the client already
		log.Debug("data socket upgrade failed", "err", err.Error(), "sessionId", sessionID)
		return
	}
	place.attach(func() {
		log.Info("an unauthenticated data socket gave its place to a newer one", "event", "pending-socket-evicted", "address", clientAddress, "sessionId", sessionID)
		crowdedOut(ws)
	})
	run(ws, sessionID, clientAddress, place.release)
}

// crowdedOut closes a pending data socket whose place a newer one took:
// close 1013 (gateway-busy, the kiosk protocol's "try again") with the reason
// "crowded-out". A close frame only: it may be written beside the session's
// own writes, an error message may not; the session ends on its failed read.
func crowdedOut(ws *websocket.Conn) {
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseTryAgainLater, "crowded-out"), time.Now().Add(time.Second))
	_ = ws.Close()
}

// goHeaderSlop is what net/http reads past MaxHeaderBytes before it answers
// 431 (its "bufio slop", initialReadLimitSize).
const goHeaderSlop = 4096

// maxHeaderBytes is http.Server's MaxHeaderBytes for a head of at most
// limit bytes in all, as Node's maxHeaderSize counts them: one number for
// both engines (limits.maxHeaderBytes).
func maxHeaderBytes(limit int) int {
	if limit <= 0 {
		return 0
	}
	return max(limit-goHeaderSlop, 1)
}

// refuse answers an upgrade with a status and closes the connection, as Node's refuseUpgrade.
func refuse(w http.ResponseWriter, status int) {
	w.Header().Set("Connection", "close")
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
}

func headerHasToken(header http.Header, name, token string) bool {
	for _, value := range header.Values(name) {
		for _, part := range strings.Split(value, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// newProxy passes requests and upgrades to Node over its Unix socket: the
// Host as the client sent it, the client's address appended to
// X-Forwarded-For, responses flushed at once (server-sent events, upgrades).
func newProxy(socket string, secure bool, log *slog.Logger) *httputil.ReverseProxy {
	target := &url.URL{Scheme: "http", Host: "gateway"}
	transport := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dialer net.Dialer
			return dialer.DialContext(ctx, "unix", socket)
		},
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     keepAliveIdle - time.Second,
		DisableCompression:  true,
	}
	proto := forwardedProto(secure)
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			setForwarded(r.Out.Header, r.In, proto)
		},
		Transport:     transport,
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if !errors.Is(err, context.Canceled) {
				log.Warn("the gateway's node side did not answer", "err", err.Error(), "path", r.URL.Path)
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
}
