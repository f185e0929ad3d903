package datasession

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

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

// controlWait bounds gorilla's wait for its own write lock on a control frame.
const controlWait = time.Second

// handOver moves both legs to a loop: the silence's reader stopped, both
// sockets out of Go's poller, what TLS already holds read, then the loop
// reads them. false when the session ended before it could start.
func (s *session) handOver() bool {
	s.handingOver.Store(true)
	_ = s.ws.NetConn().SetReadDeadline(time.Unix(1, 0))
	select {
	case <-s.readerStopped:
	case <-s.readerDone:
		// the display left as the reader stopped: kioskGone has finished the session
		return false
	}
	kiosk, server := socketUnder(s.ws.NetConn()), socketUnder(s.server.Conn.NetConn())
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
		s.endReader()
		return false
	}
	s.loop, s.kiosk, s.serverSocket, s.frames = loop, kiosk, server, wsread.New(s.engine.options.Relay.MaxFrameBytes)
	s.framer = pdu.NewFramer(pdu.ModeFor(s.server.Secured.Protocol, true), s.engine.options.Relay.MaxFrameBytes)
	s.looped.Store(true)
	if s.ended.Load() {
		// finish may have looked before looped was set: the grace is armed here too
		time.AfterFunc(s.engine.options.CloseGrace, s.endReader)
	}
	return true
}

// startLoop: records the handshake's reads took in bring no readiness edge,
// so they are read here first; then the loop has both legs.
func (s *session) startLoop() {
	loop := s.loop
	buf := make([]byte, serverReadBytes)
	s.kiosk.Drained()
	s.serverSocket.Drained()
	s.serveServer(buf)
	s.serveKiosk(buf)
	if err := loop.Add(s.serverSocket, s.serveServer); err != nil && !s.ended.Load() {
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeInternal, "").WithInternal("error", err.Error())})
	}
	if err := loop.Add(s.kiosk, s.serveKiosk); err != nil {
		// closed already (the grace, or the end of the reader)
		s.endReader()
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
	for !s.ended.Load() {
		if s.kiosk.Pressed() {
			s.serverPaused = true
			return true
		}
		n, err := s.server.Conn.Read(buf)
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
	s.readAtNs = now
	s.lastActive.Store(now)
	// the display's first TPKT ended NLA: the server's side too (relayCore.ts)
	if s.toRDP.Load() && s.framer.Mode() != pdu.ModeRDP {
		s.framer.SetMode(pdu.ModeRDP)
	}
	if failure := s.framer.Push(data, s.emitBatch); failure != nil {
		s.finish(end{reason: rpc.ReasonError, err: framingFailure(failure, false)})
		return false
	}
	s.live.bytesToKiosk.Add(uint64(len(data)))
	if copied := s.framer.Stats().CopiedBytes; copied != s.copiedSeen {
		s.live.copiedBytes.Add(copied - s.copiedSeen)
		s.copiedSeen = copied
	}
	return !s.ended.Load()
}

func (s *session) serverEnded(err error) {
	if s.ended.Load() {
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
	if s.serverPaused {
		s.serverPaused = false
		s.serveServer(buf)
	}
}

// serverRelieved: the server read its backlog down; the display is read again.
func (s *session) serverRelieved(buf []byte) {
	if s.kioskPaused {
		s.kioskPaused = false
		s.serveKiosk(buf)
	}
}

// serveKiosk reads the display until a read would wait: its frames parsed
// here (gorilla's reader treats a would-block as the connection's end).
// While relaying it stops while the server's backlog is pressed; after the
// end it reads on to the display's close frame.
func (s *session) serveKiosk(buf []byte) bool {
	for !s.readEnded.Load() {
		if !s.ended.Load() && s.serverSocket.Pressed() {
			s.kioskPaused = true
			return true
		}
		n, err := s.ws.NetConn().Read(buf)
		if n > 0 {
			if failure := s.frames.Feed(buf[:n], s.kioskMessage); failure != nil {
				s.kioskBrokeProtocol(failure)
				return false
			}
		}
		if err != nil {
			if errors.Is(err, edgeloop.ErrWouldBlock) {
				return true
			}
			if !s.readEnded.Load() {
				s.kioskGone(err)
				s.endReader()
			}
			return false
		}
	}
	return false
}

// kioskMessage is one whole message or control frame from the display, as
// gorilla's reader and readKiosk take it.
func (s *session) kioskMessage(kind wsread.Kind, payload []byte) bool {
	switch kind {
	case wsread.Binary, wsread.Text:
		if s.state.Load() == stateRelaying {
			if kind == wsread.Binary {
				s.clientFrame(payload)
			} else {
				s.clientText(payload)
			}
		}
	case wsread.Ping:
		_ = s.ws.WriteControl(websocket.PongMessage, payload, time.Now().Add(controlWait))
	case wsread.Close:
		code, text := websocket.CloseNoStatusReceived, ""
		if len(payload) >= 2 {
			code, text = int(payload[0])<<8|int(payload[1]), string(payload[2:])
		}
		// gorilla's answer: the code echoed
		_ = s.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(controlWait))
		s.kioskGone(&websocket.CloseError{Code: code, Text: text})
		s.endReader()
		return false
	}
	return !s.readEnded.Load()
}

// kioskBrokeProtocol answers as gorilla does (a close frame with the code and reason) and ends the reading.
func (s *session) kioskBrokeProtocol(err error) {
	var broken *wsread.ProtocolError
	code, reason := websocket.CloseProtocolError, err.Error()
	if errors.As(err, &broken) {
		code, reason = broken.CloseCode, broken.Message
	}
	if code == websocket.CloseMessageTooBig {
		reason = ""
	}
	data := websocket.FormatCloseMessage(code, reason)
	for len(data) > 125 || !utf8.Valid(data[2:]) {
		data = data[:len(data)-1]
	}
	_ = s.ws.WriteControl(websocket.CloseMessage, data, time.Now().Add(controlWait))
	s.kioskGone(err)
	s.endReader()
}

// endReader: the display's socket is read to its end (its close frame, its
// end, or the goodbye's grace); waitForClose may close it.
func (s *session) endReader() {
	s.readerOnce.Do(func() {
		s.readEnded.Store(true)
		close(s.readerDone)
	})
}
