package main

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/lanterna/loadtest-generator/internal/loadwire"
	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/rawsocket"
)

const (
	handshakeX224ThenTLS = "x224-then-tls"
	handshakeTLSFirst    = "tls-first"
	handshakeTimeout     = 15 * time.Second
	// one TLS record's plaintext: a request that arrives whole is read whole
	readBufferBytes = 16 << 10
	// stream mode writes this much of whole PDUs per write
	streamBatchBytes = 64 << 10
)

type echoOptions struct {
	// x224-then-tls: what an RDP server does (the gateway's target); tls-first:
	// TLS from the first byte, the X.224 exchange inside it (websockify, the pipes)
	handshake string
	// TLS session tickets; off means TLS 1.2 at most and no tickets (websockify hangs on TLS 1.3 tickets)
	sessionTickets bool
	// answer each request PDU with one PDU of this size (0: echo)
	replyBytes int
	// answer each request with a PDU of the size it names (loadwire.RequestedReplyBytes)
	sizedReplies bool
	// throughput mode: after the handshake, send PDUs of this size as fast as the peer reads (0: off)
	streamPduBytes int
}

// echoServer is the load test's stand-in RDP server (loadtest/src/echoHost.ts
// in Go): X.224 Connection Request → Confirm (PROTOCOL_SSL), TLS, then an
// answer to every request. One goroutine per connection reads a request and
// writes its answer with one Write, waiting in Go's poller between them.
type echoServer struct {
	options   echoOptions
	tlsConfig *tls.Config
	reply     []byte
	streamPdu []byte
	listener  net.Listener
	mu        sync.Mutex
	// every open connection: Go's before and during the handshake, the loop's after
	conns  map[io.Closer]struct{}
	closed bool
	// answers established connections (request/response modes; streaming keeps a goroutine)
	loop *edgeloop.Loop
}

func newEchoServer(options echoOptions, certificate tls.Certificate) (*echoServer, error) {
	if options.handshake != handshakeX224ThenTLS && options.handshake != handshakeTLSFirst {
		return nil, errors.New("handshake must be x224-then-tls or tls-first")
	}
	config := &tls.Config{
		Certificates: []tls.Certificate{certificate},
		// what OpenSSL (the Node echo host) offers; Go's default adds a post-quantum hybrid
		CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384},
	}
	if !options.sessionTickets {
		config.MaxVersion = tls.VersionTLS12
		config.SessionTicketsDisabled = true
	}
	s := &echoServer{options: options, tlsConfig: config, conns: map[io.Closer]struct{}{}}
	var err error
	if options.replyBytes != 0 {
		if s.reply, err = loadwire.BuildTpktPdu(options.replyBytes); err != nil {
			return nil, err
		}
	}
	if options.streamPduBytes != 0 {
		if s.streamPdu, err = loadwire.BuildTpktPdu(options.streamPduBytes); err != nil {
			return nil, err
		}
	} else if s.loop, err = edgeloop.New(readBufferBytes); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *echoServer) listen(address string) (int, error) {
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return 0, err
	}
	s.listener = listener
	return listener.Addr().(*net.TCPAddr).Port, nil
}

// serve accepts until close.
func (s *echoServer) serve() {
	backoff := 5 * time.Millisecond
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// out of descriptors and the like: the backlog waits while others close
			time.Sleep(backoff)
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		go s.handle(conn)
	}
}

func (s *echoServer) track(conn io.Closer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[conn] = struct{}{}
	return true
}

func (s *echoServer) untrack(conn io.Closer) {
	s.mu.Lock()
	delete(s.conns, conn)
	s.mu.Unlock()
}

func (s *echoServer) openConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// close stops accepting and ends every connection.
func (s *echoServer) close() {
	s.mu.Lock()
	s.closed = true
	conns := s.conns
	s.conns = map[io.Closer]struct{}{}
	s.mu.Unlock()
	if s.listener != nil {
		_ = s.listener.Close()
	}
	for conn := range conns {
		_ = conn.Close()
	}
}

func (s *echoServer) handle(raw net.Conn) {
	if !s.track(raw) {
		_ = raw.Close()
		return
	}
	tcp, ok := raw.(*net.TCPConn)
	if !ok {
		s.untrack(raw)
		_ = raw.Close()
		return
	}
	_ = tcp.SetNoDelay(true)
	// the handshake's reads and writes without the scheduler's hand-offs (package rawsocket)
	secure, under, pending, err := s.secure(rawsocket.Wrap(tcp))
	if err == nil && s.loop != nil && handshakeConsumed(under) {
		s.handOff(tcp, secure, under, pending)
		return
	}
	defer raw.Close()
	defer s.untrack(raw)
	if err != nil {
		return
	}
	if s.streamPdu != nil {
		s.streamForever(secure)
		return
	}
	s.answerRequests(secure, pending)
}

// handOff answers what came with the handshake, then gives the connection to
// the event loop (its descriptor leaves Go's poller). It owns the connection.
func (s *echoServer) handOff(tcp *net.TCPConn, secure *tls.Conn, under *edgeloop.Socket, pending []byte) {
	c := &loopConn{under: under, secure: secure, responder: s.newResponder(), server: s}
	if len(pending) > 0 {
		out, err := c.responder.answer(pending)
		if err == nil && len(out) > 0 {
			_, err = secure.Write(out)
		}
		if err != nil {
			s.untrack(tcp)
			_ = tcp.Close()
			return
		}
	}
	err := under.HandOff(tcp)
	s.untrack(tcp)
	if err != nil {
		_ = tcp.Close()
		return
	}
	if !s.track(c) {
		s.loop.Remove(under)
		return
	}
	// records the handshake's reads took in with it (a request right behind
	// the client's Finished) bring no readiness event: answered here first
	under.Drained()
	if !c.answerReady(make([]byte, readBufferBytes)) {
		return
	}
	if err := s.loop.Add(under, c.answerReady); err != nil {
		c.drop()
	}
}

// secure runs the handshake under one deadline and returns the TLS stream
// (over a handoffConn, so the loop can take the socket over) with any request
// bytes that came in the Connection Request's read.
func (s *echoServer) secure(raw net.Conn) (*tls.Conn, *edgeloop.Socket, []byte, error) {
	_ = raw.SetDeadline(time.Now().Add(handshakeTimeout))
	defer func() { _ = raw.SetDeadline(time.Time{}) }()
	if s.options.handshake == handshakeTLSFirst {
		under := edgeloop.NewSocket(raw)
		secure := tls.Server(under, s.tlsConfig)
		if err := secure.Handshake(); err != nil {
			return nil, nil, nil, err
		}
		pending, err := answerConnectionRequest(secure)
		return secure, under, pending, err
	}
	rest, err := answerConnectionRequest(raw)
	if err != nil {
		return nil, nil, nil, err
	}
	var prefixed net.Conn = raw
	if len(rest) > 0 {
		prefixed = &prefixedConn{Conn: raw, prefix: append([]byte(nil), rest...)}
	}
	under := edgeloop.NewSocket(prefixed)
	secure := tls.Server(under, s.tlsConfig)
	return secure, under, nil, secure.Handshake()
}

func (s *echoServer) newResponder() responder {
	switch {
	case s.options.sizedReplies:
		return &sizedResponder{}
	case s.reply != nil:
		return &replyResponder{reply: s.reply}
	default:
		return echoResponder{}
	}
}

// answerRequests is the hot path: one Read, one Write per request that arrives whole.
func (s *echoServer) answerRequests(secure *tls.Conn, pending []byte) {
	r := s.newResponder()
	buf := make([]byte, readBufferBytes)
	chunk := pending
	for {
		if len(chunk) > 0 {
			out, err := r.answer(chunk)
			if err != nil {
				return
			}
			if len(out) > 0 {
				if _, err := secure.Write(out); err != nil {
					return
				}
			}
		}
		n, err := secure.Read(buf)
		if n == 0 && err != nil {
			return
		}
		chunk = buf[:n]
	}
}

// streamForever sends whole PDUs as fast as the peer reads, discarding what it sends.
func (s *echoServer) streamForever(secure *tls.Conn) {
	go func() { _, _ = io.Copy(io.Discard, secure) }()
	count := max(1, streamBatchBytes/len(s.streamPdu))
	batch := make([]byte, 0, count*len(s.streamPdu))
	for range count {
		batch = append(batch, s.streamPdu...)
	}
	for {
		if _, err := secure.Write(batch); err != nil {
			return
		}
	}
}
