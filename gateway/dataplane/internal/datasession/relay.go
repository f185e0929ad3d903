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

// serverReadBytes: one TLS record's plaintext at most comes from one read.
const serverReadBytes = 16 << 10

// relay starts the pump: both legs to an event loop (loop.go), secured and
// the Confirm to the display, then the loop carries the server's bytes to
// the display and the display's frames to the server.
func (s *session) relay(connected *targetconn.Connected) {
	if s.server.presenter != nil {
		s.relayPresenter(connected)
		return
	}
	e := s.engine
	if e.draining.Load() {
		// secured as the drain began: ended now, or the drain would wait for it
		s.finish(end{reason: rpc.ReasonGatewayShutdown})
		return
	}
	s.idle.arm(s.ms(e.options.Relay.IdleTimeoutMs))
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
	d := &s.display
	d.writeMu.Lock()
	if s.life.ended.Load() {
		d.writeMu.Unlock()
		return
	}
	err := d.ws.WriteMessage(websocket.BinaryMessage, batch)
	d.writeMu.Unlock()
	if err != nil {
		if socket := socketUnder(d.ws.NetConn()); socket != nil && socket.Stalled() {
			// a blocking write (a presenter's leg, presenterjoin.go) that the display took none of within timeouts.writeMs
			s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodePeerNotReading,
				"the display took none of the gateway's writes for "+itoa(s.engine.options.Timeouts.WriteMs)+" ms").WithDetail("side", "client")})
			return
		}
		// the display is gone
		s.finish(end{reason: rpc.ReasonClientClosed})
		return
	}
	s.engine.latency.observe(time.Duration(s.engine.now() - s.server.readAtNs))
	s.figures.live.pdusToKiosk.Add(uint64(pdus))
	s.figures.live.framesToKiosk.Add(1)
}

// clientFrame: one binary message from the display, whole PDUs only, to the server as it is.
func (s *session) clientFrame(frame []byte) {
	s.idle.touch(s.engine.now())
	frame, count, send, err := s.input.pass(frame)
	if err != nil {
		s.finish(end{reason: rpc.ReasonError, err: framingFailure(err, true)})
		return
	}
	if !send {
		return
	}
	s.figures.live.bytesToServer.Add(uint64(len(frame)))
	s.figures.live.pdusToServer.Add(uint64(count))
	s.figures.live.framesToServer.Add(1)
	if s.server.presenter != nil {
		s.writePresenter(frame)
		return
	}
	// a server that does not read keeps this in its backlog, and past the high mark the display is not read: the backpressure
	if _, err := s.server.conn.Conn.Write(frame); err != nil && !s.life.ended.Load() {
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
		if !s.display.pongDue(s.engine.now()) {
			return
		}
		s.display.writeMu.Lock()
		if !s.life.ended.Load() {
			_ = s.display.ws.WriteMessage(websocket.TextMessage, pongMessage(message.t))
		}
		s.display.writeMu.Unlock()
	default:
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeBadMessage, "the display sent an unexpected control message during the session")})
	}
}

// framingFailure is relayCore.ts's framingFailure: the kiosk protocol's words
// for a malformed PDU; any other error is internal.
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
	d := &s.display
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	if s.life.ended.Load() {
		return true, nil
	}
	writeErr = d.ws.WriteMessage(websocket.TextMessage, securedJSON(connected.Secured))
	if writeErr == nil {
		writeErr = d.ws.WriteMessage(websocket.BinaryMessage, connected.Confirm)
	}
	return false, writeErr
}
