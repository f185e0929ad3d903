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
	"encoding/json"
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

// read is the socket's one reader, from the end of `present` to the socket's end.
func (p *presenterLeg) read() {
	defer close(p.readerDone)
	buffer := make([]byte, 0, 4<<10)
	for {
		kind, reader, err := p.ws.NextReader()
		if err == nil {
			buffer, err = readAll(reader, buffer[:0])
		}
		if err != nil {
			p.readerEnded(err)
			return
		}
		if !p.dispatch(presenterMessage{kind: kind, data: buffer}) {
			// the message went on whole (the join keeps it): the next one needs its own buffer
			buffer = make([]byte, 0, 4<<10)
		}
		if cap(buffer) > 256<<10 {
			buffer = make([]byte, 0, 4<<10)
		}
	}
}

// dispatch does with one message what the leg's state says; false when the
// message's buffer was handed on and must not be reused.
func (p *presenterLeg) dispatch(message presenterMessage) bool {
	p.mu.Lock()
	state := p.state.Load()
	if state == presenterConfirming {
		if p.overrun || len(p.confirm) > 0 {
			p.overrun = true
		} else {
			p.confirm <- message
			p.mu.Unlock()
			return false
		}
		p.mu.Unlock()
		return true
	}
	p.mu.Unlock()
	switch state {
	case presenterWaiting:
		why := withdrawnUnexpected
		if message.kind == websocket.TextMessage && isPresenterClose(message.data) {
			why = withdrawnClose
		}
		if p.engine.desk.withdraw(p) {
			p.withdrawn <- why
			return true
		}
		// taken as it spoke: the join judges it
		return p.dispatch(message)
	case presenterJoined:
		<-p.started
		return p.dispatch(message)
	case presenterRelaying:
		p.session.presenterMessage(p, message)
	case presenterForwarded:
		<-p.forwardReady
		if p.forward != nil {
			p.forwardMessage(message)
		}
	}
	return true
}

// readerEnded: the page's socket ended (its close, a broken frame, the goodbye's grace).
func (p *presenterLeg) readerEnded(err error) {
	switch p.state.Load() {
	case presenterWaiting:
		if p.engine.desk.withdraw(p) {
			p.withdrawn <- withdrawnGone
			return
		}
		// taken as it left: the join hears readerDone
	case presenterForwarded:
		<-p.forwardReady
		// the sibling hears the page's end as the end of its stream
		if unix, ok := p.forward.(*net.UnixConn); ok {
			_ = unix.CloseWrite()
		}
	case presenterJoined, presenterRelaying:
		<-p.started
		if p.state.Load() == presenterRelaying {
			p.log.Debug("presenter socket ended", "err", err.Error())
			// as a server that closed its connection (presenterSocketStream.ts: the socket's close ends the input)
			p.session.finish(end{reason: rpc.ReasonServerClosed})
		}
	}
}

// startRelay: the display has its secured and Confirm; the page's messages go to it from here.
func (p *presenterLeg) startRelay() {
	p.state.CompareAndSwap(presenterJoined, presenterRelaying)
	p.startOnce.Do(func() { close(p.started) })
}

// writeLocal sends the page one message on its socket: binary (the
// Connection Request, the display's PDUs) or text (its `pace`).
func (p *presenterLeg) writeLocal(kind int, data []byte) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.state.Load() == presenterEnded {
		return errPresenterEnded
	}
	return p.ws.WriteMessage(kind, data)
}

var errPresenterEnded = fmt.Errorf("the presenter page's leg has ended")

// stalled: a write to the page made no progress within timeouts.writeMs.
func (p *presenterLeg) stalled() bool {
	if p.remote != nil {
		return p.remoteStalled.Load()
	}
	socket := socketUnder(p.ws.NetConn())
	return socket != nil && socket.Stalled()
}

// presenterGoodbye is what the page is told as its leg ends: an error, or `ended` with a reason.
type presenterGoodbye struct {
	err    *sessionerr.Error
	reason string
	// silent: the page is gone; nothing is written.
	silent bool
}

// end says the page's goodbye once (its error, or `ended` and a close frame),
// lets its close frame or the grace end the reader, and tells Node.
func (p *presenterLeg) end(goodbye presenterGoodbye) {
	p.endOnce.Do(func() {
		e := p.engine
		p.state.Store(presenterEnded)
		p.startOnce.Do(func() { close(p.started) })
		if p.remote != nil {
			// the sibling that holds the page says it
			p.remoteGoodbye(goodbye)
			close(p.ended)
			return
		}
		grace := e.options.CloseGrace
		if !goodbye.silent {
			cut := time.AfterFunc(grace, func() { _ = underTLS(p.ws.NetConn()).Close() })
			p.writeMu.Lock()
			_ = p.ws.SetWriteDeadline(time.Now().Add(grace))
			if goodbye.err != nil {
				body, _ := json.Marshal(errorMessage{Type: "error", Phase: goodbye.err.Phase, Code: goodbye.err.Code, Message: p.messageOf(goodbye.err), Detail: nonNil(goodbye.err.Detail)})
				_ = p.ws.WriteMessage(websocket.TextMessage, body)
				_ = p.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(p.closeCodeOf(goodbye.err.Code), goodbye.err.Code))
			} else {
				code := websocket.CloseNormalClosure
				if goodbye.reason == rpc.ReasonGatewayShutdown {
					code = websocket.CloseGoingAway
				}
				_ = p.ws.WriteMessage(websocket.TextMessage, endedJSON(goodbye.reason))
				_ = p.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, goodbye.reason))
			}
			p.writeMu.Unlock()
			cut.Stop()
		}
		// the page's close frame, or the grace, ends the reader
		_ = p.ws.NetConn().SetReadDeadline(time.Now().Add(grace))
		ended := rpc.PresenterEnded{SessionID: p.id, Reason: goodbye.reason}
		if goodbye.err != nil {
			ended.Reason = rpc.ReasonError
			ended.Error = &rpc.EndedError{Phase: goodbye.err.Phase, Code: goodbye.err.Code, Message: p.messageOf(goodbye.err), Detail: nonNil(goodbye.err.Detail), Internal: nonNil(goodbye.err.Internal)}
		}
		e.node.Notify(rpc.OpPresenterEnded, ended)
		if p.forward != nil {
			// the sibling's display hears the end of the page's stream
			_ = p.forward.Close()
		}
		e.endForward(p)
		close(p.ended)
		e.goodbyes.Done()
	})
}

func (p *presenterLeg) messageOf(err *sessionerr.Error) string {
	if err.Message != "" {
		return err.Message
	}
	if entry, ok := p.engine.options.Errors[err.Code]; ok {
		return entry.Message
	}
	return err.Code
}

func (p *presenterLeg) closeCodeOf(code string) int {
	if entry, ok := p.engine.options.Errors[code]; ok && entry.Close != 0 {
		return entry.Close
	}
	return websocket.CloseInternalServerErr
}

// isPresenterClose: the page's polite `{"type":"close"}` (protocol/src/presenterLeg.ts).
func isPresenterClose(text []byte) bool {
	return presenterTextType(text) == "close"
}

// presenterTextType is a JSON message's type, or "" when it has none.
func presenterTextType(text []byte) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(text, &fields); err != nil || fields == nil {
		return ""
	}
	var kind string
	if raw, ok := fields["type"]; !ok || json.Unmarshal(raw, &kind) != nil {
		return ""
	}
	return kind
}
