package datasession

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"time"

	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/internal/wsread"
	"lanterna/dataplane/pdu"
)

// The relay phase runs on an event loop (package edgeloop): both legs of a
// session on one loop, read when their edge comes, written without waiting.
// A goroutine per leg cost a wake-up and a park per message and a read that
// found the socket empty after each one (the profile at 1,600 KW v1
// sessions: half the reads, an eighth of the data plane's CPU, and the
// scheduler's share on top).

// relayPump is the event loop's hold on both legs. loop and looped are
// set by handOver (looped publishes the legs' sockets to finish); the
// paused flags are the loop's own, read and written on its goroutine: a
// leg is not read while the other's backlog is pressed (the backpressure),
// and the other's relief reads it again.
type relayPump struct {
	loop *edgeloop.Loop
	// looped: the legs are the loop's (reads end with endReader)
	looped                    atomic.Bool
	serverPaused, kioskPaused bool
}

// handOver moves both legs to a loop: the silence's reader stopped, both
// sockets out of Go's poller, what TLS already holds read, then the loop
// reads them. false when the session ended before it could start.
func (s *session) handOver() bool {
	s.display.handingOver.Store(true)
	s.display.stopReads()
	select {
	case <-s.display.readerStopped:
	case <-s.display.readerDone:
		// the display left as the reader stopped: kioskGone has finished the session
		return false
	}
	kiosk, server := socketUnder(s.display.ws.NetConn()), socketUnder(s.server.conn.Conn.NetConn())
	loop, err := s.engine.nextLoop()
	switch {
	case err != nil:
	case kiosk == nil || server == nil:
		err = errors.New("a leg is not on a socket the event loop can take")
	default:
		relay := s.engine.options.Relay
		kiosk.KeepBacklog(relay.HighWaterBytes, relay.LowWaterBytes, relay.MaxBacklogBytes, s.kioskRelieved)
		server.KeepBacklog(relay.HighWaterBytes, relay.LowWaterBytes, relay.MaxBacklogBytes, s.serverRelieved)
		if err = handOffSocket(kiosk); err == nil {
			err = handOffSocket(server)
		}
	}
	if err != nil {
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeInternal, "").WithInternal("error", err.Error())})
		// the goodbye's close frame is answered, if at all, to no one: the grace ends the socket
		s.display.endReader()
		return false
	}
	s.pump.loop, s.display.socket, s.server.socket, s.display.frames = loop, kiosk, server, wsread.New(s.engine.options.Relay.MaxFrameBytes)
	s.server.framer = pdu.NewFramer(pdu.ModeFor(s.server.conn.Secured.Protocol, true), s.engine.options.Relay.MaxFrameBytes)
	s.pump.looped.Store(true)
	if s.life.ended.Load() {
		// finish may have looked before looped was set: the grace is armed here too
		time.AfterFunc(s.engine.options.CloseGrace, s.display.endReader)
	}
	return true
}

// startLoop: records the handshake's reads took in bring no readiness edge,
// so they are read here first; then the loop has both legs.
func (s *session) startLoop() {
	loop := s.pump.loop
	buf := make([]byte, serverReadBytes)
	s.display.socket.Drained()
	s.server.socket.Drained()
	s.serveServer(buf)
	s.serveKiosk(buf)
	if err := loop.Add(s.server.socket, s.serveServer); err != nil && !s.life.ended.Load() {
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeInternal, "").WithInternal("error", err.Error())})
	}
	if err := loop.Add(s.display.socket, s.serveKiosk); err != nil {
		// closed already (the grace, or the end of the reader)
		s.display.endReader()
	}
}

func handOffSocket(socket *edgeloop.Socket) error {
	tcp, ok := socket.Conn.(edgeloop.TCP)
	if !ok {
		return errors.New("not a TCP connection")
	}
	return socket.HandOff(tcp)
}

// socketUnder finds the event loop's socket under a connection (through TLS and the front door's count).
func socketUnder(conn net.Conn) *edgeloop.Socket {
	for conn != nil {
		switch under := conn.(type) {
		case *edgeloop.Socket:
			return under
		case *tls.Conn:
			conn = under.NetConn()
		case interface{ Unwrap() net.Conn }:
			conn = under.Unwrap()
		default:
			return nil
		}
	}
	return nil
}

// serveServer reads the server until a read would wait: whole PDUs to the
// display. It stops while the display's backlog is pressed (kioskRelieved
// goes on).
func (s *session) serveServer(buf []byte) bool {
	for !s.life.ended.Load() {
		if s.display.socket.Pressed() {
			s.pump.serverPaused = true
			return true
		}
		n, err := s.server.conn.Conn.Read(buf)
		if n > 0 && !s.serverBytes(buf[:n]) {
			return false
		}
		if err != nil {
			if errors.Is(err, edgeloop.ErrWouldBlock) {
				return true
			}
			s.serverEnded(err)
			return false
		}
	}
	return false
}

// serverBytes: one TLS read through the framer; false when the session ended.
func (s *session) serverBytes(data []byte) bool {
	now := s.engine.now()
	leg := &s.server
	leg.readAtNs = now
	s.idle.touch(now)
	// the display's first TPKT ended NLA: the server's side too (relayCore.ts)
	if s.input.toRDP.Load() && leg.framer.Mode() != pdu.ModeRDP {
		leg.framer.SetMode(pdu.ModeRDP)
	}
	if failure := leg.framer.Push(data, leg.emit); failure != nil {
		s.finish(end{reason: rpc.ReasonError, err: framingFailure(failure, false)})
		return false
	}
	s.figures.live.bytesToKiosk.Add(uint64(len(data)))
	s.figures.copied(leg.framer.Stats().CopiedBytes)
	return !s.life.ended.Load()
}

func (s *session) serverEnded(err error) {
	if s.life.ended.Load() {
		return
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		s.finish(end{reason: rpc.ReasonServerClosed})
		return
	}
	s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeServerError, "").WithInternal("error", err.Error())})
}

// kioskRelieved: the display read its backlog down; the server is read again.
func (s *session) kioskRelieved(buf []byte) {
	if s.pump.serverPaused {
		s.pump.serverPaused = false
		s.serveServer(buf)
	}
}

// serverRelieved: the server read its backlog down; the display is read again.
func (s *session) serverRelieved(buf []byte) {
	if s.pump.kioskPaused {
		s.pump.kioskPaused = false
		s.serveKiosk(buf)
	}
}
