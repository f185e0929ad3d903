package datasession

// A presenter page's socket (/v1/sessions/{id}/present, docs/kiosk-protocol.md
// "Presenter socket", docs/browser-presenter.md): a browser-source session's
// server leg, as the Node engine's presenterChannel.ts, presenterLegs.ts and
// presenterSocketStream.ts run it. Its first message, `present`, goes to
// Node whole (the schema, the token-guess budget and the single-use token
// are Node's); then the page waits, silent, on this data plane's presenter
// desk until its display's data socket takes it (presenterjoin.go), or its
// wait ends. One goroutine reads the socket for its whole life and does
// with each message what the leg's state says: during the wait any message
// ends it, while the Confirm is awaited the first goes to the join, while
// relaying each goes to the display's session.

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/pdu"
)

// States of a presenter's leg.
const (
	// presenterHandshake: its `present` is being read and judged.
	presenterHandshake int32 = iota
	// presenterWaiting: admitted, silent, on the desk until its display takes it.
	presenterWaiting
	// presenterLeaving: its wait ended (it spoke, left, was stopped, or the time ran out).
	presenterLeaving
	// presenterConfirming: the display's Connection Request was passed; its Confirm is awaited.
	presenterConfirming
	// presenterJoined: its Confirm was taken; the display's relay is starting.
	presenterJoined
	// presenterRelaying: its messages go to the display's session.
	presenterRelaying
	// presenterForwarded: a sibling's display took it; its messages go there (presenterpeers.go).
	presenterForwarded
	// presenterEnded: its goodbye is said or being said.
	presenterEnded
)

// Why a presenter's wait ended before its display took it.
type presenterWithdrawal int

const (
	withdrawnClose presenterWithdrawal = iota
	withdrawnUnexpected
	withdrawnGone
)

// presenterMessage is one whole message from the page.
type presenterMessage struct {
	kind int
	data []byte
}

type presenterLeg struct {
	engine        *Engine
	ws            *websocket.Conn
	id            string
	clientAddress string
	log           *slog.Logger
	// identity is Node's answer to `present`: the wait and what `secured` says of the leg.
	identity rpc.PresentAnswer

	state atomic.Int32
	// mu orders the reader's hand-over of a message with the join's move out of presenterConfirming.
	mu sync.Mutex
	// confirm: the first message while the Confirm is awaited; overrun: a second came before the join took it.
	confirm chan presenterMessage
	overrun bool
	// taken is closed when a display's session took the leg (session is set then).
	taken   chan struct{}
	session *session
	// withdrawn and stopped end the wait.
	withdrawn chan presenterWithdrawal
	stopped   chan string
	// started is closed once the relay runs, or the leg ended first.
	started   chan struct{}
	startOnce sync.Once

	writeMu sync.Mutex
	endOnce sync.Once
	// ended is closed when the goodbye is said; readerDone when the socket is read to its end.
	ended      chan struct{}
	readerDone chan struct{}

	// remote: the page is on a sibling data plane, this the connection to it
	// (presenterpeers.go); forward: this page's socket is here and a sibling's
	// display took it, this the connection there (set before forwardReady closes)
	remote        net.Conn
	forward       net.Conn
	forwardReady  chan struct{}
	frameMu       sync.Mutex
	remoteStalled atomic.Bool
	// counted: relaying in the engine's count while forwarded (under engine.mu)
	counted bool

	// the relay's, owned by the reader: the page's PDU mode, its upload rate, and its fault
	mode  pdu.Mode
	rate  *uploadRate
	pace  *presenterPace
	fault atomic.Pointer[sessionerr.Error]
}

// ServePresenter runs one upgraded presenter socket to its end. granted
// gives back the front door's pending place (once Node admitted the page,
// and again, harmlessly, at the end).
func (e *Engine) ServePresenter(ws *websocket.Conn, sessionID, clientAddress string, granted func()) {
	defer granted()
	p := &presenterLeg{
		engine: e, ws: ws, id: sessionID, clientAddress: clientAddress,
		log:     e.log.With("sessionId", sessionID, "channel", "presenter"),
		confirm: make(chan presenterMessage, 1), taken: make(chan struct{}),
		withdrawn: make(chan presenterWithdrawal, 1), stopped: make(chan string, 1), started: make(chan struct{}),
		ended: make(chan struct{}), readerDone: make(chan struct{}), mode: pdu.ModeRDP, forwardReady: make(chan struct{}),
	}
	e.mu.Lock()
	e.running.Add(1)
	e.goodbyes.Add(1)
	e.mu.Unlock()
	defer e.running.Done()
	p.run(granted)
	<-p.ended
	<-p.readerDone
	_ = ws.NetConn().Close()
}

func (p *presenterLeg) run(granted func()) {
	e := p.engine
	options := e.options
	p.ws.SetReadLimit(int64(options.MaxJSONFrameBytes))
	stopWaiting := context.AfterFunc(e.shutdown, func() { _ = p.ws.NetConn().SetReadDeadline(time.Unix(1, 0)) })
	first, failure, gone := p.readPresent()
	stopWaiting()
	if gone {
		// the page left before it said anything: nothing to tell it (as the Node engine)
		p.end(presenterGoodbye{silent: true, reason: rpc.ReasonClientClosed})
		close(p.readerDone)
		return
	}
	if failure == nil {
		ctx, cancel := context.WithTimeout(e.shutdown, time.Duration(options.Timeouts.HelloMs)*time.Millisecond)
		p.identity, failure = e.node.Present(ctx, rpc.PresentRequest{SessionID: p.id, Message: first, ClientAddress: p.clientAddress})
		cancel()
		if failure != nil && e.shutdown.Err() != nil && failure.Code == sessionerr.CodeInternal {
			failure = sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeGatewayShutdown, "")
		}
	}
	if failure != nil {
		p.end(presenterGoodbye{err: failure})
		go p.read()
		return
	}
	granted()
	p.ws.SetReadLimit(int64(options.Relay.MaxFrameBytes))
	if options.Relay.PresenterBytesPerSecond > 0 {
		p.rate = newUploadRate(options.Relay.PresenterBytesPerSecond, time.Now())
		p.pace = newPresenterPace(time.Now())
	}
	p.state.Store(presenterWaiting)
	go p.read()
	if !e.desk.offer(p) {
		// a second presenter for one session cannot pass the single-use claim; should one, the first keeps its place
		p.leave()
		p.end(presenterGoodbye{err: sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeTimeout, "the display did not open the session in time").WithDetail("phase", sessionerr.PhaseOpen)})
		return
	}
	p.wait()
}

// readPresent reads the page's first message within helloMs: its text for
// Node (nil when it sent binary, which Node refuses with its words), or the
// error to end it with, or gone when the page left first.
func (p *presenterLeg) readPresent() (*string, *sessionerr.Error, bool) {
	e := p.engine
	helloMs := e.options.Timeouts.HelloMs
	if e.shutdown.Err() != nil {
		return nil, sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeGatewayShutdown, ""), false
	}
	_ = p.ws.SetReadDeadline(time.Now().Add(time.Duration(helloMs) * time.Millisecond))
	kind, data, err := p.ws.ReadMessage()
	switch {
	case err == nil:
		_ = p.ws.SetReadDeadline(time.Time{})
	case e.shutdown.Err() != nil:
		return nil, sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeGatewayShutdown, ""), false
	case isTimeout(err):
		return nil, sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeTimeout, fmt.Sprintf("no present message within %d ms", helloMs)).WithDetail("phase", sessionerr.PhaseOpen), false
	default:
		return nil, nil, true
	}
	if kind != websocket.TextMessage {
		return nil, nil, false
	}
	text := string(data)
	return &text, nil, false
}

// wait: on the desk until the display takes the leg (its session owns it from
// there), the page speaks or leaves, a stop, the drain, or the token's life.
func (p *presenterLeg) wait() {
	e := p.engine
	// Node logged its presenter-waiting when it admitted the page
	p.log.Debug("presenter page waiting for the display", "waitMs", p.identity.WaitMs)
	timer := time.NewTimer(time.Duration(p.identity.WaitMs) * time.Millisecond)
	defer timer.Stop()
	var goodbye presenterGoodbye
	select {
	case <-p.taken:
		return
	case why := <-p.withdrawn:
		switch why {
		case withdrawnClose:
			p.log.Info("presenter page left before the display joined", "event", "presenter-left")
			goodbye = presenterGoodbye{reason: rpc.ReasonServerClosed}
		case withdrawnUnexpected:
			goodbye = presenterGoodbye{err: sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeBadMessage, "the presenter page sent data before the display joined")}
		default:
			p.log.Info("presenter page left before the display joined", "event", "presenter-left")
			goodbye = presenterGoodbye{silent: true, reason: rpc.ReasonServerClosed}
		}
		p.end(goodbye)
		return
	case reason := <-p.stopped:
		goodbye = presenterGoodbye{reason: reason}
	case <-e.shutdown.Done():
		goodbye = presenterGoodbye{reason: rpc.ReasonGatewayShutdown}
	case <-timer.C:
		goodbye = presenterGoodbye{err: sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeTimeout, "the display did not open the session in time").WithDetail("phase", sessionerr.PhaseOpen)}
	}
	if !p.leave() {
		// the display took it as the wait ended: its session owns it now
		return
	}
	p.end(goodbye)
}

// leave ends the wait from outside the reader: false when a display took the leg first.
func (p *presenterLeg) leave() bool {
	return p.engine.desk.withdraw(p)
}
