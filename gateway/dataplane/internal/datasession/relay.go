package datasession

import (
	"errors"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/internal/targetconn"
	"lanterna/dataplane/pdu"
)

// minPingInterval: pings closer together than this get no answer (dataSocketControl.ts).
const minPingInterval = 200 * time.Millisecond

// minIdleCheck: idle checks closer together than this are not worth a timer (relaySession.ts).
const minIdleCheck = time.Second

// serverReadBytes: one TLS record's plaintext at most comes from one read.
const serverReadBytes = 16 << 10

// relay starts the pump: both legs to an event loop (loop.go), secured and
// the Confirm to the display, then the loop carries the server's bytes to
// the display and the display's frames to the server.
func (s *session) relay(connected *targetconn.Connected) {
	if s.presenter != nil {
		s.relayPresenter(connected)
		return
	}
	e := s.engine
	if e.draining.Load() {
		// secured as the drain began: ended now, or the drain would wait for it
		s.finish(end{reason: rpc.ReasonGatewayShutdown})
		return
	}
	if s.idleTimer != nil {
		s.idleTimer.Reset(s.ms(e.options.Relay.IdleTimeoutMs))
	}
	if !s.handOver() {
		return
	}
	ended, writeErr := s.sendSecured(connected)
	if ended {
		s.startLoop()
		return
	}
	secured := connected.Secured
	e.node.Notify(rpc.OpSecured, rpc.Secured{
		SessionID: s.id, Address: connected.Address, Protocol: secured.Protocol, TLSVersion: secured.TLSVersion,
		Cipher: secured.Cipher, Trust: secured.Trust, Fingerprint: secured.Fingerprint,
	})
	s.log.Debug("server leg secured", "event", "secured", "address", connected.Address, "protocol", secured.Protocol,
		"tls", secured.TLSVersion, "trust", secured.Trust, "fingerprint", secured.Fingerprint)
	if writeErr != nil {
		s.finish(end{reason: rpc.ReasonClientClosed})
	}
	s.startLoop()
}

// sendBatch is the framer's emit: one binary message, timed from the read.
func (s *session) sendBatch(batch []byte, pdus int) {
	s.writeMu.Lock()
	if s.ended.Load() {
		s.writeMu.Unlock()
		return
	}
	err := s.ws.WriteMessage(websocket.BinaryMessage, batch)
	s.writeMu.Unlock()
	if err != nil {
		if socket := socketUnder(s.ws.NetConn()); socket != nil && socket.Stalled() {
			// a blocking write (a presenter's leg, presenterjoin.go) that the display took none of within timeouts.writeMs
			s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodePeerNotReading,
				"the display took none of the gateway's writes for "+itoa(s.engine.options.Timeouts.WriteMs)+" ms").WithDetail("side", "client")})
			return
		}
		// the display is gone
		s.finish(end{reason: rpc.ReasonClientClosed})
		return
	}
	s.engine.latency.observe(time.Duration(s.engine.now() - s.readAtNs))
	s.live.pdusToKiosk.Add(uint64(pdus))
	s.live.framesToKiosk.Add(1)
}

// clientFrame: one binary message from the display, whole PDUs only, to the server as it is.
func (s *session) clientFrame(frame []byte) {
	s.lastActive.Store(s.engine.now())
	count, next, err := pdu.CountWhole(frame, s.clientMode, 0)
	if err != nil {
		var framing *pdu.FramingError
		if errors.As(err, &framing) {
			s.finish(end{reason: rpc.ReasonError, err: framingFailure(framing, true)})
		} else {
			s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeInternal, "").WithInternal("error", err.Error())})
		}
		return
	}
	if next != s.clientMode {
		s.clientMode = next
		if next == pdu.ModeRDP {
			s.toRDP.Store(true)
		}
	}
	// the presenter's permission, enforced here whatever the display page does (pdu/input.go)
	if s.clientMode == pdu.ModeRDP && !s.inputAllowed.Load() {
		var dropped int
		frame, dropped = pdu.DropInput(frame)
		count -= dropped
		if len(frame) == 0 {
			return
		}
	}
	s.live.bytesToServer.Add(uint64(len(frame)))
	s.live.pdusToServer.Add(uint64(count))
	s.live.framesToServer.Add(1)
	if s.presenter != nil {
		s.writePresenter(frame)
		return
	}
	// a server that does not read keeps this in its backlog, and past the high mark the display is not read: the backpressure
	if _, err := s.server.Conn.Write(frame); err != nil && !s.ended.Load() {
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeServerError, "").WithInternal("error", err.Error())})
	}
}

// clientText: session control during the relay (dataSocketControl.ts):
// ping (answered at most once per 200 ms, only its number echoed), close,
// anything else a bad message. A ping is not traffic: it keeps nothing alive.
func (s *session) clientText(text []byte) {
	message, ok := parseKioskMessage(text)
	switch {
	case ok && message.kind == "close":
		s.finish(end{reason: rpc.ReasonClientClosed})
	case ok && message.kind == "ping":
		now := s.engine.now()
		if s.lastPongNs != 0 && time.Duration(now-s.lastPongNs) < minPingInterval {
			return
		}
		s.lastPongNs = now
		s.writeMu.Lock()
		if !s.ended.Load() {
			_ = s.ws.WriteMessage(websocket.TextMessage, pongMessage(message.t))
		}
		s.writeMu.Unlock()
	default:
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeBadMessage, "the display sent an unexpected control message during the session")})
	}
}

// checkIdle: the idle timer's one check; rearmed for the time left, never per message.
func (s *session) checkIdle() {
	if s.ended.Load() {
		return
	}
	idle := s.ms(s.engine.options.Relay.IdleTimeoutMs)
	idleFor := time.Duration(s.engine.now() - s.lastActive.Load())
	if idleFor >= idle {
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeTimeout,
			"no traffic for "+itoa(s.engine.options.Relay.IdleTimeoutMs)+" ms").WithDetail("phase", sessionerr.PhaseRelay)})
		return
	}
	s.idleTimer.Reset(max(idle-idleFor, minIdleCheck))
}

// framingFailure is relayCore.ts's framingFailure: the kiosk protocol's words for a malformed PDU.
func framingFailure(err error, fromClient bool) *sessionerr.Error {
	var framing *pdu.FramingError
	if !errors.As(err, &framing) {
		return sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeInternal, "").WithInternal("error", err.Error())
	}
	code, who, side := sessionerr.CodeServerError, "the presenter's computer", "server"
	if fromClient {
		code, who, side = sessionerr.CodePduInvalid, "the display", "client"
	}
	if framing.Code == pdu.CodePduTooLarge {
		code = sessionerr.CodePduTooLarge
	}
	return sessionerr.New(sessionerr.PhaseRelay, code, who+" sent a malformed RDP message: "+framing.Message).WithDetail("side", side)
}

// sendSecured tells the display its server leg is secured (`secured`, then
// the server's Confirm), under the write lock; ended: the session ended
// meanwhile and nothing was sent. A TLS leg and a presenter page's alike.
func (s *session) sendSecured(connected *targetconn.Connected) (ended bool, writeErr error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.ended.Load() {
		return true, nil
	}
	writeErr = s.ws.WriteMessage(websocket.TextMessage, securedJSON(connected.Secured))
	if writeErr == nil {
		writeErr = s.ws.WriteMessage(websocket.BinaryMessage, connected.Confirm)
	}
	return false, writeErr
}
