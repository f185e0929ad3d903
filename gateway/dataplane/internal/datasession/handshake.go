package datasession

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/internal/targetconn"
	"lanterna/dataplane/pdu"
)

// States of a session's data socket, as its reader sees them.
const (
	// stateHandshake: open and the Connection Request are read by the session itself.
	stateHandshake int32 = iota
	// stateSilent: the server leg is being made; any message from the display ends it.
	stateSilent
	// stateInterrupted: the display broke the silence (or left); the handshake is ending.
	stateInterrupted
	// stateRelaying: the pump runs.
	stateRelaying
	// stateEnded: the goodbye is said or being said; messages are dropped until the close.
	stateEnded
)

// How the display ended the handshake early.
type earlyEnd int32

const (
	notEarly earlyEnd = iota
	earlyClose
	earlyViolation
	earlyGone
)

// sessionPhase is where the session is, shared by the handshake (which
// makes the server leg), the display's reader (which may interrupt it) and
// finish: whoever moves state first decides, by compare-and-swap.
type sessionPhase struct {
	state atomic.Int32
	// early: how the display interrupted the silence (an earlyEnd), set by interrupt
	early atomic.Int32
	// cancelConnect aborts the server handshake (the display broke its silence, or left).
	cancelConnect context.CancelCauseFunc
}

func (p *sessionPhase) relaying() bool { return p.state.Load() == stateRelaying }

// interrupt: the display spoke or left during the silence.
func (p *sessionPhase) interrupt(why earlyEnd) {
	if p.state.CompareAndSwap(stateSilent, stateInterrupted) {
		p.early.Store(int32(why))
		if why == earlyViolation {
			p.cancelConnect(violation())
		} else {
			p.cancelConnect(errors.New("the display ended the handshake"))
		}
	}
}

func (p *sessionPhase) earlyEnd() earlyEnd { return earlyEnd(p.early.Load()) }

var violation = func() *sessionerr.Error {
	return sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeBadMessage, "the display sent data before the server connection was secured")
}

// readOpen waits for the display's open message (within helloMs).
func (s *session) readOpen() (string, *sessionerr.Error) {
	helloMs := s.engine.options.Timeouts.HelloMs
	kind, data, err := s.readHandshake(helloMs)
	if err != nil {
		switch {
		case s.engine.shutdown.Err() != nil:
			return "", sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeGatewayShutdown, "")
		case isTimeout(err):
			return "", sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeTimeout, fmt.Sprintf("no open message within %d ms", helloMs)).WithDetail("phase", sessionerr.PhaseOpen)
		}
		return "", sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeBadMessage, "the display closed before opening the session")
	}
	if kind == websocket.TextMessage {
		if message, ok := parseKioskMessage(data); ok && message.kind == "open" {
			return message.token, nil
		}
	}
	return "", sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeBadMessage, "the first message must be open")
}

// readRequest waits for the Connection Request (within requestMs), or the display's polite close.
func (s *session) readRequest() ([]byte, bool, *sessionerr.Error) {
	requestMs := s.engine.options.Timeouts.RequestMs
	kind, data, err := s.readHandshake(requestMs)
	if err != nil {
		switch {
		case s.engine.shutdown.Err() != nil:
			return nil, false, sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeGatewayShutdown, "")
		case isTimeout(err):
			return nil, false, sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeTimeout, fmt.Sprintf("no connection request within %d ms", requestMs)).WithDetail("phase", sessionerr.PhaseRequest)
		}
		return nil, false, sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeBadMessage, "the display closed before sending its connection request")
	}
	if kind == websocket.TextMessage && isCloseMessage(data) {
		return nil, true, nil
	}
	if kind != websocket.BinaryMessage {
		return nil, false, sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeBadMessage, "expected the X.224 connection request as a binary message")
	}
	return data, false, nil
}

func (s *session) readHandshake(timeoutMs int) (int, []byte, error) {
	ws := s.display.ws
	if s.engine.shutdown.Err() != nil {
		return 0, nil, context.Canceled
	}
	_ = ws.SetReadDeadline(time.Now().Add(s.ms(timeoutMs)))
	if s.engine.shutdown.Err() != nil {
		// the drain came between the check and the deadline
		_ = ws.SetReadDeadline(time.Unix(1, 0))
	}
	kind, data, err := ws.ReadMessage()
	if err == nil {
		_ = ws.SetReadDeadline(time.Time{})
	}
	return kind, data, err
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// connectAndRelay: the server leg while the display stays silent, then the pump.
func (s *session) connectAndRelay(request []byte) {
	e := s.engine
	options := e.options
	check := func() *sessionerr.Error { return targetconn.CheckRequest(request, options.RequireNla) }
	if s.server.browser {
		check = func() *sessionerr.Error { return checkPresenterRequest(request) }
	}
	if failure := check(); failure != nil {
		s.finish(end{reason: rpc.ReasonError, err: failure})
		return
	}
	// From here the reader runs on its own: a message now breaks the silence.
	ctx, cancel := context.WithCancelCause(e.shutdown)
	defer cancel(nil)
	s.phase.cancelConnect = cancel
	s.phase.state.Store(stateSilent)
	go s.readKiosk()

	var connected *targetconn.Connected
	var failure *sessionerr.Error
	if s.server.browser {
		connected, failure = s.joinPresenter(ctx, request)
	} else {
		connected, failure = s.connectTarget(ctx, request)
	}
	if failure != nil && e.shutdown.Err() != nil && failure.Code == sessionerr.CodeInternal {
		// an answer cut short by the drain
		failure = sessionerr.New(failure.Phase, sessionerr.CodeGatewayShutdown, "")
	}
	if failure == nil {
		// published to the reader and to finish by the state's change below
		s.server.conn = connected
		s.input.mode = pdu.ModeFor(connected.Secured.Protocol, false)
		s.idle.touch(e.now())
		s.life.securedAt = time.Now()
		if e.options.Relay.IdleTimeoutMs > 0 {
			// armed by relay; made here so that finish, from any goroutine, sees it
			s.idle.timer = time.AfterFunc(time.Duration(math.MaxInt64), s.checkIdle)
		}
		e.startRelay(s)
		// The silence ends here: whoever moves the state first decides.
		if s.phase.state.CompareAndSwap(stateSilent, stateRelaying) {
			s.relay(connected)
			return
		}
	} else if s.phase.state.CompareAndSwap(stateSilent, stateInterrupted) {
		// the reader goes on reading: in this state it drops what comes
		s.finish(end{reason: rpc.ReasonError, err: failure})
		return
	}
	// the display spoke or left first
	switch s.phase.earlyEnd() {
	case earlyClose:
		s.finish(end{reason: rpc.ReasonClientClosed})
	case earlyGone:
		s.log.Info("display left during the handshake", "event", "client-gone")
		s.finish(end{reason: rpc.ReasonClientClosed})
	default:
		s.finish(end{reason: rpc.ReasonError, err: violation()})
	}
}
