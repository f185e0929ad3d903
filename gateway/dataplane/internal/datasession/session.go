package datasession

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/internal/targetconn"
	"lanterna/dataplane/internal/wsread"
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

// end is how a session ended: a reason, and the error when the reason is "error".
type end struct {
	reason string
	err    *sessionerr.Error
}

type session struct {
	engine        *Engine
	ws            *websocket.Conn
	id            string
	clientAddress string
	log           *slog.Logger

	state atomic.Int32
	early atomic.Int32
	// cancelConnect aborts the server handshake (the display broke its silence, or left).
	cancelConnect context.CancelCauseFunc

	// writeMu: one writer at a time on the WebSocket.
	writeMu sync.Mutex
	ended   atomic.Bool
	// inputAllowed: the presenter lets the display control the computer (Engine.SetInput); off, input PDUs are dropped
	inputAllowed atomic.Bool
	endOnce      sync.Once
	// finished is closed once the goodbye has been said (or could not be).
	finished chan struct{}
	// readerDone is closed when the display's socket has been read to its end.
	readerDone chan struct{}

	server *targetconn.Connected
	// browser: Node's grant is a browser source's; presenter: its page's leg, once taken (presenterjoin.go)
	browser   bool
	presenter *presenterLeg
	relaying  bool // under engine.mu
	securedAt time.Time
	live      liveCounters
	pauses    pauseCounter
	sampled   counters // under engine.mu
	// sampleSlot: which of the sample's slices carries this session (under engine.mu)
	sampleSlot int

	// handingOver: the silence's reader is being stopped for the loop (it
	// closes readerStopped instead of taking the deadline as the display's end)
	handingOver   atomic.Bool
	readerStopped chan struct{}
	// looped: the legs are the loop's (reads end with endReader)
	looped       atomic.Bool
	readerOnce   sync.Once
	readEnded    atomic.Bool
	loop         *edgeloop.Loop
	kiosk        *edgeloop.Socket
	serverSocket *edgeloop.Socket
	frames       *wsread.Reader
	framer       *pdu.Framer
	copiedSeen   uint64
	// the loop's: a leg not read while the other's backlog is pressed
	serverPaused, kioskPaused bool

	// the pump's state, each owned by one goroutine
	clientMode pdu.Mode
	toRDP      atomic.Bool
	lastPongNs int64
	readAtNs   int64
	lastActive atomic.Int64
	idleTimer  *time.Timer
	emitBatch  func(batch []byte, pdus int)
}

var violation = func() *sessionerr.Error {
	return sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeBadMessage, "the display sent data before the server connection was secured")
}

func newSession(e *Engine, ws *websocket.Conn, id, clientAddress string) *session {
	s := &session{engine: e, ws: ws, id: id, clientAddress: clientAddress, finished: make(chan struct{}), readerDone: make(chan struct{}), readerStopped: make(chan struct{}),
		log: e.log.With("sessionId", id, "channel", "data")}
	s.emitBatch = s.sendBatch
	// the same socket the relay's loop takes over: its count spans the hand-off
	if socket := socketUnder(ws.NetConn()); socket != nil {
		s.pauses = socket
	}
	return s
}

func (s *session) totals() counters {
	totals := s.live.load()
	if s.pauses != nil {
		totals.pauses = s.pauses.Pauses()
	}
	return totals
}

// pauseCounter is a connection that counts the writes that had to wait (the display's socket).
type pauseCounter interface{ Pauses() uint64 }

// unsampledFrom is totals less what earlier samples took; they are taken now. Under engine.mu.
func (s *session) unsampledFrom(totals counters) counters {
	delta := totals.minus(s.sampled)
	s.sampled = totals
	return delta
}

func (s *session) unsampled() counters { return s.unsampledFrom(s.totals()) }

func (s *session) ms(milliseconds int) time.Duration {
	return time.Duration(milliseconds) * time.Millisecond
}

// run is the whole life of the socket: handshake, relay, goodbye.
func (s *session) run(granted func()) {
	defer granted()
	e := s.engine
	options := e.options
	s.ws.SetReadLimit(int64(options.MaxJSONFrameBytes))
	// a drain ends a handshake wherever it waits
	stopWaiting := context.AfterFunc(e.shutdown, func() { _ = s.ws.NetConn().SetReadDeadline(time.Unix(1, 0)) })
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
	s.browser = opened.Presenter
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
	s.ws.SetReadLimit(int64(options.Relay.MaxFrameBytes))
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
	if s.engine.shutdown.Err() != nil {
		return 0, nil, context.Canceled
	}
	_ = s.ws.SetReadDeadline(time.Now().Add(s.ms(timeoutMs)))
	if s.engine.shutdown.Err() != nil {
		// the drain came between the check and the deadline
		_ = s.ws.SetReadDeadline(time.Unix(1, 0))
	}
	kind, data, err := s.ws.ReadMessage()
	if err == nil {
		_ = s.ws.SetReadDeadline(time.Time{})
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
	if s.browser {
		check = func() *sessionerr.Error { return checkPresenterRequest(request) }
	}
	if failure := check(); failure != nil {
		s.finish(end{reason: rpc.ReasonError, err: failure})
		return
	}
	// From here the reader runs on its own: a message now breaks the silence.
	ctx, cancel := context.WithCancelCause(e.shutdown)
	defer cancel(nil)
	s.cancelConnect = cancel
	s.state.Store(stateSilent)
	go s.readKiosk()

	var connected *targetconn.Connected
	var failure *sessionerr.Error
	if s.browser {
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
		s.server = connected
		s.clientMode = pdu.ModeFor(connected.Secured.Protocol, false)
		s.lastActive.Store(e.now())
		s.securedAt = time.Now()
		if e.options.Relay.IdleTimeoutMs > 0 {
			// armed by relay; made here so that finish, from any goroutine, sees it
			s.idleTimer = time.AfterFunc(time.Duration(math.MaxInt64), s.checkIdle)
		}
		e.startRelay(s)
		// The silence ends here: whoever moves the state first decides.
		if s.state.CompareAndSwap(stateSilent, stateRelaying) {
			s.relay(connected)
			return
		}
	} else if s.state.CompareAndSwap(stateSilent, stateInterrupted) {
		// the reader goes on reading: in this state it drops what comes
		s.finish(end{reason: rpc.ReasonError, err: failure})
		return
	}
	// the display spoke or left first
	switch earlyEnd(s.early.Load()) {
	case earlyClose:
		s.finish(end{reason: rpc.ReasonClientClosed})
	case earlyGone:
		s.log.Info("display left during the handshake", "event", "client-gone")
		s.finish(end{reason: rpc.ReasonClientClosed})
	default:
		s.finish(end{reason: rpc.ReasonError, err: violation()})
	}
}

// connectTarget is the server leg to the grant's target: Node resolves and
// allows its address, targetconn makes the leg, Node judges the certificate.
func (s *session) connectTarget(ctx context.Context, request []byte) (*targetconn.Connected, *sessionerr.Error) {
	e := s.engine
	options := e.options
	resolveCtx, resolveCancel := context.WithTimeout(ctx, s.ms(options.Timeouts.ConnectMs))
	target, failure := e.node.Resolve(resolveCtx, rpc.ResolveRequest{SessionID: s.id})
	resolveCancel()
	if failure != nil {
		return nil, failure
	}
	return targetconn.Connect(ctx, targetconn.Request{
		Host: target.Host, Port: target.Port, Address: target.Address, ConnectionRequest: request,
		RequireNla: options.RequireNla,
		Timeouts: targetconn.Timeouts{
			Connect: s.ms(options.Timeouts.ConnectMs), Confirm: s.ms(options.Timeouts.ConfirmMs), TLS: s.ms(options.Timeouts.TLSMs),
			Write: s.ms(options.Timeouts.WriteMs),
		},
		Roots: options.Roots,
		OnPhase: func(phase string, d time.Duration) {
			e.node.Notify(rpc.OpPhase, rpc.Phase{Phase: phase, Ms: float64(d) / float64(time.Millisecond)})
		},
	}, s.judge)
}

// judge asks Node's certificate policy.
func (s *session) judge(ctx context.Context, facts targetconn.CertificateFacts) (string, *sessionerr.Error) {
	ctx, cancel := context.WithTimeout(ctx, s.ms(s.engine.options.Timeouts.TLSMs))
	defer cancel()
	return s.engine.node.Certificate(ctx, rpc.CertificateRequest{
		SessionID: s.id, Host: facts.Host, Port: facts.Port, Address: facts.Address,
		Fingerprint: facts.Fingerprint, CAVerified: facts.CAVerified, CAError: facts.CAError,
	})
}

// interrupt: the display spoke or left during the silence.
func (s *session) interrupt(why earlyEnd) {
	if s.state.CompareAndSwap(stateSilent, stateInterrupted) {
		s.early.Store(int32(why))
		if why == earlyViolation {
			s.cancelConnect(violation())
		} else {
			s.cancelConnect(errors.New("the display ended the handshake"))
		}
	}
}

// stop ends a session from outside (Node's stop, the drain).
func (s *session) stop(reason string) {
	switch s.state.Load() {
	case stateRelaying:
		s.finish(end{reason: reason})
	case stateSilent, stateInterrupted, stateHandshake:
		// handshakes end with the drain's context; nothing else stops them
	}
}

// finish says goodbye once: the server leg closed, the error or `ended`
// and the close frame to the display, `ended` to Node.
func (s *session) finish(how end) {
	s.endOnce.Do(func() {
		if overflow := s.backlogOverflow(); overflow != nil {
			// whatever the end looked like (a leg's end, a failed write), its cause was the cut
			how = end{reason: rpc.ReasonError, err: overflow}
		}
		s.ended.Store(true)
		previous := s.state.Swap(stateEnded)
		s.engine.ending(s)
		if s.idleTimer != nil {
			s.idleTimer.Stop()
		}
		if s.server != nil && s.server.Conn != nil {
			_ = s.server.Conn.NetConn().Close()
		}
		e := s.engine
		grace := e.options.CloseGrace
		// a write stuck on a display that does not read is cut after the
		// grace: the connection under TLS, whose Close would wait for the
		// stuck writer's lock
		cut := time.AfterFunc(grace, func() { _ = underTLS(s.ws.NetConn()).Close() })
		s.writeMu.Lock()
		_ = s.ws.SetWriteDeadline(time.Now().Add(grace))
		gone := previous == stateInterrupted && earlyEnd(s.early.Load()) == earlyGone
		if !gone {
			s.sayGoodbye(how)
		}
		s.writeMu.Unlock()
		cut.Stop()
		// the display's close frame, or the grace, ends the reader
		_ = s.ws.NetConn().SetReadDeadline(time.Now().Add(grace))
		if s.looped.Load() {
			// the loop's reads have no deadline (handOver arms it when it sets looped after this)
			time.AfterFunc(grace, s.endReader)
		}
		if previous == stateHandshake {
			// no reader runs yet: the handshake's own reads stopped
			go s.readKiosk()
		}
		if s.presenter != nil {
			// the page hears how its session ended (it may be at fault: presenterBroke)
			s.endPresenter(how)
		}
		s.logEnd(how)
		ended := rpc.Ended{SessionID: s.id, Reason: how.reason}
		if !s.securedAt.IsZero() {
			ended.Seconds = time.Since(s.securedAt).Seconds()
		}
		if how.err != nil {
			ended.Error = &rpc.EndedError{Phase: how.err.Phase, Code: how.err.Code, Message: s.messageOf(how.err), Detail: nonNil(how.err.Detail), Internal: nonNil(how.err.Internal)}
		}
		e.node.Notify(rpc.OpEnded, ended)
		close(s.finished)
		e.goodbyes.Done()
	})
}

// backlogOverflow is the session's error when a leg was cut for leaving
// more unread than relay.maxBacklogBytes (edgeloop's Overflowed), else nil.
func (s *session) backlogOverflow() *sessionerr.Error {
	if !s.looped.Load() {
		// the legs are the loop's (and these fields published) only from here
		return nil
	}
	side, who := "", ""
	switch {
	case s.serverSocket != nil && s.serverSocket.Overflowed():
		side, who = "server", "the presenter's computer"
	case s.kiosk != nil && s.kiosk.Overflowed():
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

func (s *session) sayGoodbye(how end) {
	if how.err != nil {
		if len(how.err.Confirm) > 0 {
			_ = s.ws.WriteMessage(websocket.BinaryMessage, how.err.Confirm)
		}
		body, _ := json.Marshal(errorMessage{Type: "error", Phase: how.err.Phase, Code: how.err.Code, Message: s.messageOf(how.err), Detail: nonNil(how.err.Detail)})
		_ = s.ws.WriteMessage(websocket.TextMessage, body)
		reason := how.err.Code
		if len(reason) > 123 {
			reason = reason[:123]
		}
		_ = s.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(s.closeCodeOf(how.err.Code), reason))
		return
	}
	_ = s.ws.WriteMessage(websocket.TextMessage, endedJSON(how.reason))
	code := websocket.CloseNormalClosure
	if how.reason == rpc.ReasonGatewayShutdown {
		code = websocket.CloseGoingAway
	}
	_ = s.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, how.reason))
}

func (s *session) logEnd(how end) {
	switch {
	case how.err == nil:
		s.log.Debug("session ended", "event", "session-ended", "reason", how.reason)
	case how.err.Code == sessionerr.CodeInternal:
		s.log.Error("internal error", "phase", how.err.Phase, "internal", how.err.Internal)
	default:
		s.log.Info(s.messageOf(how.err), "event", "session-error", "phase", how.err.Phase, "code", how.err.Code, "detail", how.err.Detail, "internal", how.err.Internal)
	}
}

// messageOf is the error's message, or its code's default from Node's table.
func (s *session) messageOf(err *sessionerr.Error) string {
	if err.Message != "" {
		return err.Message
	}
	if entry, ok := s.engine.options.Errors[err.Code]; ok {
		return entry.Message
	}
	return err.Code
}

func (s *session) closeCodeOf(code string) int {
	if entry, ok := s.engine.options.Errors[code]; ok && entry.Close != 0 {
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
	<-s.finished
	<-s.readerDone
	_ = s.ws.NetConn().Close()
}

// readKiosk reads the display's socket from the silence until the relay's
// loop takes it over (or to its end, when the session ends first): during
// the silence a message interrupts; once relaying, binary frames go to the
// server and text frames are session control; after the end, messages are
// dropped until the close frame (or the grace) ends the socket.
func (s *session) readKiosk() {
	buffer := make([]byte, 0, 4<<10)
	for {
		kind, reader, err := s.ws.NextReader()
		if err == nil {
			buffer, err = readAll(reader, buffer[:0])
		}
		if err != nil {
			if s.handingOver.Load() {
				// the deadline was handOver's: the loop reads from here
				close(s.readerStopped)
				return
			}
			s.kioskGone(err)
			s.endReader()
			return
		}
		switch s.state.Load() {
		case stateSilent:
			if kind == websocket.TextMessage && isCloseMessage(buffer) {
				s.interrupt(earlyClose)
			} else {
				s.interrupt(earlyViolation)
			}
		case stateRelaying:
			if kind == websocket.BinaryMessage {
				s.clientFrame(buffer)
			} else {
				s.clientText(buffer)
			}
		}
		// a frame far larger than usual is not kept for the session's life
		if cap(buffer) > 256<<10 {
			buffer = make([]byte, 0, 4<<10)
		}
	}
}

func (s *session) kioskGone(err error) {
	switch s.state.Load() {
	case stateSilent:
		s.interrupt(earlyGone)
		if s.state.Load() == stateRelaying {
			s.finish(end{reason: rpc.ReasonClientClosed})
		}
	case stateRelaying:
		s.log.Debug("display socket ended", "err", err.Error())
		s.finish(end{reason: rpc.ReasonClientClosed})
	}
}

// readAll reads one message into buffer, growing it as needed.
func readAll(reader io.Reader, buffer []byte) ([]byte, error) {
	for {
		if len(buffer) == cap(buffer) {
			buffer = append(buffer, 0)[:len(buffer)]
		}
		n, err := reader.Read(buffer[len(buffer):cap(buffer)])
		buffer = buffer[:len(buffer)+n]
		if err == io.EOF {
			return buffer, nil
		}
		if err != nil {
			return buffer, err
		}
	}
}
