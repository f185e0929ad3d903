package datasession

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
)

// end is how a session ended: a reason, and the error when the reason is "error".
type end struct {
	reason string
	err    *sessionerr.Error
}

// lifecycle is the session's end: finish runs once (endOnce) from whichever
// goroutine saw the end first; ended tells every other goroutine to stop
// writing, and finished wakes those that wait for the goodbye.
type lifecycle struct {
	ended   atomic.Bool
	endOnce sync.Once
	// finished is closed once the goodbye has been said (or could not be).
	finished chan struct{}
	// securedAt: when the server leg was secured (the ended notice's seconds); zero before
	securedAt time.Time
	// relaying: counted in the engine's relaying sessions, which a drain waits for (under engine.mu)
	relaying bool
}

// seconds is how long the session was secured, 0 when it never was.
func (l *lifecycle) seconds() float64 {
	if l.securedAt.IsZero() {
		return 0
	}
	return time.Since(l.securedAt).Seconds()
}

// stop ends a session from outside (Node's stop, the drain).
func (s *session) stop(reason string) {
	switch s.phase.state.Load() {
	case stateRelaying:
		s.finish(end{reason: reason})
	case stateSilent, stateInterrupted, stateHandshake:
		// handshakes end with the drain's context; nothing else stops them
	}
}

// finish says goodbye once: the server leg closed, the error or `ended`
// and the close frame to the display, `ended` to Node.
func (s *session) finish(how end) {
	s.life.endOnce.Do(func() {
		if overflow := s.backlogOverflow(); overflow != nil {
			// whatever the end looked like (a leg's end, a failed write), its cause was the cut
			how = end{reason: rpc.ReasonError, err: overflow}
		}
		s.life.ended.Store(true)
		previous := s.phase.state.Swap(stateEnded)
		s.engine.ending(s)
		s.idle.stop()
		s.server.close()
		e := s.engine
		grace := e.options.CloseGrace
		ws := s.display.ws
		// a write stuck on a display that does not read is cut after the
		// grace: the connection under TLS, whose Close would wait for the
		// stuck writer's lock
		cut := time.AfterFunc(grace, func() { _ = underTLS(ws.NetConn()).Close() })
		s.display.writeMu.Lock()
		_ = ws.SetWriteDeadline(time.Now().Add(grace))
		gone := previous == stateInterrupted && s.phase.earlyEnd() == earlyGone
		if !gone {
			s.sayGoodbye(how)
		}
		s.display.writeMu.Unlock()
		cut.Stop()
		// the display's close frame, or the grace, ends the reader
		_ = ws.NetConn().SetReadDeadline(time.Now().Add(grace))
		if s.pump.looped.Load() {
			// the loop's reads have no deadline (handOver arms it when it sets looped after this)
			time.AfterFunc(grace, s.display.endReader)
		}
		if previous == stateHandshake {
			// no reader runs yet: the handshake's own reads stopped
			go s.readKiosk()
		}
		if s.server.presenter != nil {
			// the page hears how its session ended (it may be at fault: presenterBroke)
			s.endPresenter(how)
		}
		s.logEnd(how)
		ended := rpc.Ended{SessionID: s.id, Reason: how.reason, Seconds: s.life.seconds()}
		if how.err != nil {
			ended.Error = &rpc.EndedError{Phase: how.err.Phase, Code: how.err.Code, Message: e.messageOf(how.err), Detail: nonNil(how.err.Detail), Internal: nonNil(how.err.Internal)}
		}
		e.node.Notify(rpc.OpEnded, ended)
		close(s.life.finished)
		e.goodbyes.Done()
	})
}

// backlogOverflow is the session's error when a leg was cut for leaving
// more unread than relay.maxBacklogBytes (edgeloop's Overflowed), else nil.
func (s *session) backlogOverflow() *sessionerr.Error {
	if !s.pump.looped.Load() {
		// the legs are the loop's (and these fields published) only from here
		return nil
	}
	side, who := "", ""
	switch {
	case s.server.socket != nil && s.server.socket.Overflowed():
		side, who = "server", "the presenter's computer"
	case s.display.socket != nil && s.display.socket.Overflowed():
		side, who = "client", "the display"
	default:
		return nil
	}
	return sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodePeerNotReading,
		fmt.Sprintf("%s stopped reading and left more than %d bytes unread", who, s.engine.options.Relay.MaxBacklogBytes)).
		WithDetail("side", side)
}

// underTLS is the connection a TLS connection runs over (the front door's
// counted one), or conn itself: closing it frees a writer blocked inside TLS.
func underTLS(conn net.Conn) net.Conn {
	if secured, ok := conn.(*tls.Conn); ok {
		return secured.NetConn()
	}
	return conn
}

// sayGoodbye writes the end to the display (under its write lock): the
// error (after the failed Confirm, when there is one) or `ended`, then the
// close frame with the error's code or the reason.
func (s *session) sayGoodbye(how end) {
	ws := s.display.ws
	e := s.engine
	if how.err != nil {
		if len(how.err.Confirm) > 0 {
			_ = ws.WriteMessage(websocket.BinaryMessage, how.err.Confirm)
		}
		body, _ := json.Marshal(errorMessage{Type: "error", Phase: how.err.Phase, Code: how.err.Code, Message: e.messageOf(how.err), Detail: nonNil(how.err.Detail)})
		_ = ws.WriteMessage(websocket.TextMessage, body)
		reason := how.err.Code
		if len(reason) > 123 {
			reason = reason[:123]
		}
		_ = ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(e.closeCodeOf(how.err.Code), reason))
		return
	}
	_ = ws.WriteMessage(websocket.TextMessage, endedJSON(how.reason))
	code := websocket.CloseNormalClosure
	if how.reason == rpc.ReasonGatewayShutdown {
		code = websocket.CloseGoingAway
	}
	_ = ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, how.reason))
}

func (s *session) logEnd(how end) {
	switch {
	case how.err == nil:
		s.log.Debug("session ended", "event", "session-ended", "reason", how.reason)
	case how.err.Code == sessionerr.CodeInternal:
		s.log.Error("internal error", "phase", how.err.Phase, "internal", how.err.Internal)
	default:
		s.log.Info(s.engine.messageOf(how.err), "event", "session-error", "phase", how.err.Phase, "code", how.err.Code, "detail", how.err.Detail, "internal", how.err.Internal)
	}
}

// messageOf is the error's message, or its code's default from Node's table.
func (e *Engine) messageOf(err *sessionerr.Error) string {
	if err.Message != "" {
		return err.Message
	}
	if entry, ok := e.options.Errors[err.Code]; ok {
		return entry.Message
	}
	return err.Code
}

// closeCodeOf is the close code Node's table gives the error's code (1011 without one).
func (e *Engine) closeCodeOf(code string) int {
	if entry, ok := e.options.Errors[code]; ok && entry.Close != 0 {
		return entry.Close
	}
	return websocket.CloseInternalServerErr
}

func nonNil(fields map[string]any) map[string]any {
	if fields == nil {
		return map[string]any{}
	}
	return fields
}

// waitForClose returns once the goodbye is said and the display's socket read to its end.
func (s *session) waitForClose() {
	<-s.life.finished
	<-s.display.readerDone
	_ = s.display.ws.NetConn().Close()
}
