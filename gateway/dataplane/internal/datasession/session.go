package datasession

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
)

// session is one data socket from its upgrade to its goodbye. Its state is
// grouped by owner: each part is one concern, written by the goroutine or
// under the lock its type names, so that who may touch a field can be read
// from where it lives. The parts live in the files that own them:
//
//	phase    handshake.go     where the session is; the silence's interruption
//	display  displayleg.go    the display's WebSocket: its writes and its one reader
//	server   serverleg.go     the server leg (a TLS connection or a presenter page) and its framer
//	pump     loop.go          the event loop's hold on both legs, and the backpressure
//	input    inputgate.go     the display's frames on their way to the server
//	idle     idle.go          the idle deadline
//	figures  figures.go       what the sample reports
//	life     goodbye.go       the end, said once
type session struct {
	engine        *Engine
	id            string
	clientAddress string
	log           *slog.Logger

	phase   sessionPhase
	display displayLeg
	server  serverLeg
	pump    relayPump
	input   inputGate
	idle    idleWatch
	figures figures
	life    lifecycle
}

func newSession(e *Engine, ws *websocket.Conn, id, clientAddress string) *session {
	s := &session{engine: e, id: id, clientAddress: clientAddress, log: e.log.With("sessionId", id, "channel", "data")}
	s.display = displayLeg{ws: ws, readerDone: make(chan struct{}), readerStopped: make(chan struct{})}
	s.life.finished = make(chan struct{})
	s.server.emit = s.sendBatch
	// the same socket the relay's loop takes over: its count spans the hand-off
	if socket := socketUnder(ws.NetConn()); socket != nil {
		s.figures.pauses = socket
	}
	return s
}

func (s *session) ms(milliseconds int) time.Duration {
	return time.Duration(milliseconds) * time.Millisecond
}

// run is the whole life of the socket: handshake, relay, goodbye.
func (s *session) run(granted func()) {
	defer granted()
	e := s.engine
	options := e.options
	ws := s.display.ws
	ws.SetReadLimit(int64(options.MaxJSONFrameBytes))
	// a drain ends a handshake wherever it waits
	stopWaiting := context.AfterFunc(e.shutdown, s.display.stopReads)
	defer stopWaiting()

	token, failure := s.readOpen()
	if failure != nil {
		s.finish(end{reason: rpc.ReasonError, err: failure})
		s.waitForClose()
		return
	}
	openCtx, cancel := context.WithTimeout(e.shutdown, s.ms(options.Timeouts.HelloMs))
	opened, failure := e.node.Open(openCtx, rpc.OpenRequest{SessionID: s.id, Token: token, ClientAddress: s.clientAddress})
	cancel()
	s.server.browser = opened.Presenter
	if failure != nil && e.shutdown.Err() != nil && failure.Code == sessionerr.CodeInternal {
		failure = sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeGatewayShutdown, "")
	}
	if failure != nil {
		s.finish(end{reason: rpc.ReasonError, err: failure})
		s.waitForClose()
		return
	}
	e.grant(s)
	granted()
	ws.SetReadLimit(int64(options.Relay.MaxFrameBytes))
	if !e.admit() {
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeGatewayBusy,
			fmt.Sprintf("the gateway is at its limit of %d sessions", options.MaxSessions))})
		s.waitForClose()
		return
	}
	defer e.leave()

	request, politeClose, failure := s.readRequest()
	// from here the reader's deadlines are the relay's (a drain lets relaying sessions run)
	stopWaiting()
	switch {
	case failure != nil:
		s.finish(end{reason: rpc.ReasonError, err: failure})
	case politeClose:
		s.finish(end{reason: rpc.ReasonClientClosed})
	default:
		s.connectAndRelay(request)
	}
	s.waitForClose()
}
