package frontdoor

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/rawsocket"
)

// gateListener accepts TCP connections, drops those over the limits at once,
// runs the TLS handshake (when configured) in its own goroutine under its own
// deadline, and hands the HTTP server only connections that are ready: a slow
// handshake holds no accept and is not timed by the HTTP server's deadlines.
type gateListener struct {
	raw       net.Listener
	limits    *connectionLimits
	tlsConfig *tls.Config
	handshake time.Duration
	// writeStall: each write's deadline on every connection (edgeloop's LimitWriteStall)
	writeStall time.Duration
	log        *slog.Logger
	ready      chan net.Conn
	closed     chan struct{}
	closeOnce  sync.Once
	acceptErr  error
}

// soReusePort is Linux's SO_REUSEPORT (the syscall package does not name it):
// the workers' data planes share the port, the kernel spreading connections.
const soReusePort = 0xf

func listen(ctx context.Context, host string, port int, reusePort bool) (net.Listener, error) {
	config := net.ListenConfig{}
	if reusePort {
		config.Control = func(_, _ string, conn syscall.RawConn) error {
			var optErr error
			err := conn.Control(func(fd uintptr) {
				optErr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soReusePort, 1)
			})
			if err != nil {
				return err
			}
			return optErr
		}
	}
	return config.Listen(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
}

func newGateListener(raw net.Listener, limits *connectionLimits, tlsConfig *tls.Config, handshake, writeStall time.Duration, log *slog.Logger) *gateListener {
	l := &gateListener{raw: raw, limits: limits, tlsConfig: tlsConfig, handshake: handshake, writeStall: writeStall, log: log, ready: make(chan net.Conn), closed: make(chan struct{})}
	go l.acceptLoop()
	return l
}

func (l *gateListener) acceptLoop() {
	var backoff time.Duration
	for {
		conn, err := l.raw.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				l.Close()
				return
			}
			// out of descriptors and the like: wait a little, as net/http does
			backoff = min(max(backoff*2, 5*time.Millisecond), time.Second)
			l.log.Warn("accept failed", "err", err.Error())
			select {
			case <-time.After(backoff):
				continue
			case <-l.closed:
				return
			}
		}
		backoff = 0
		address := CanonicalAddress(conn.RemoteAddr())
		if why := l.limits.admit(address); why != "" {
			l.log.Warn("connection dropped", "event", why, "address", address)
			_ = conn.Close()
			continue
		}
		// raw system calls, over a socket the relay's event loop can take over
		socket := edgeloop.NewSocket(rawsocket.Wrap(conn))
		// every write has a deadline, TLS's own too: a key update's answer
		// written inside a read, which no read deadline (headers, open) frees
		socket.LimitWriteStall(l.writeStall)
		counted := &countedConn{Conn: socket, address: address, limits: l.limits}
		if l.tlsConfig == nil {
			l.handOver(counted)
			continue
		}
		go l.secure(counted)
	}
}

func (l *gateListener) secure(conn *countedConn) {
	secured := tls.Server(conn, l.tlsConfig)
	deadline := time.Now().Add(l.handshake)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	_ = conn.SetDeadline(deadline)
	if err := secured.HandshakeContext(ctx); err != nil {
		l.log.Debug("tls handshake failed", "address", conn.address, "err", err.Error())
		_ = secured.Close()
		return
	}
	_ = conn.SetDeadline(time.Time{})
	l.handOver(secured)
}

func (l *gateListener) handOver(conn net.Conn) {
	select {
	case l.ready <- conn:
	case <-l.closed:
		_ = conn.Close()
	}
}

func (l *gateListener) Accept() (net.Conn, error) {
	select {
	case conn := <-l.ready:
		return conn, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; connections already handed over stay open.
func (l *gateListener) Close() error {
	l.closeOnce.Do(func() {
		close(l.closed)
		_ = l.raw.Close()
	})
	return nil
}

func (l *gateListener) Addr() net.Addr { return l.raw.Addr() }
