// Package datasession runs data sockets as the Node engine does
// (gateway/src/channel/dataChannel.ts and gateway/src/relay): the `open`
// message and Node's grant, the Connection Request, the server leg while the
// display stays silent, `secured` and the Confirm, then the pump until one
// side ends, and the goodbye. Decisions (the grant, the target, the
// certificate's trust) are Node's, asked through the Node interface.
package datasession

import (
	"context"
	"crypto/x509"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
)

// Node is what a session asks Node and tells it (the RPC's session operations).
type Node interface {
	Open(ctx context.Context, request rpc.OpenRequest) (rpc.OpenAnswer, *sessionerr.Error)
	Resolve(ctx context.Context, request rpc.ResolveRequest) (rpc.ResolveAnswer, *sessionerr.Error)
	Certificate(ctx context.Context, request rpc.CertificateRequest) (string, *sessionerr.Error)
	// Present judges a presenter page's first message (presenter.go).
	Present(ctx context.Context, request rpc.PresentRequest) (rpc.PresentAnswer, *sessionerr.Error)
	// Notify sends a notification; it must not block for long.
	Notify(op string, params any)
}

// Options is the part of configure the sessions read.
type Options struct {
	Relay    rpc.Relay
	Timeouts rpc.Timeouts
	// MaxSessions bounds the sessions past open (limits.maxSessions); 0: none.
	MaxSessions       int
	RequireNla        bool
	Roots             *x509.CertPool
	MaxJSONFrameBytes int
	Errors            map[string]rpc.ErrorEntry
	// CloseGrace bounds a goodbye's writes and the wait for the display's close frame (0: 5 s).
	CloseGrace time.Duration
}

// Engine holds a process's data sockets: it runs each, answers stop and
// drain, and sums what the sample reports.
type Engine struct {
	options Options
	node    Node
	log     *slog.Logger
	// base is the zero of the sessions' monotonic clocks (nanoseconds since it).
	base time.Time

	shutdown       context.Context
	shutdownCancel context.CancelFunc
	draining       atomic.Bool

	mu sync.Mutex
	// sessions: every data socket from its upgrade to its end.
	sessions map[*session]struct{}
	// byID: granted sessions, for stop and the sample.
	byID map[string]*session
	// admitted counts sessions past open, against MaxSessions.
	admitted int
	// retired holds ended sessions' counts not yet sampled.
	retired counters
	// relaying counts sessions in their pump; relayEnded is signalled when one ends (a drain waits on it).
	relaying   int
	relayEnded chan struct{}
	running    sync.WaitGroup
	// goodbyes: sessions that have not yet said goodbye (what a drain waits for)
	goodbyes sync.WaitGroup

	latency histogram
	// desk: presenter sockets waiting for their displays' data sockets
	desk *presenterDesk
	// peers: the directory of the sibling data planes' sockets and this one's (presenterpeers.go; nil without siblings)
	peers atomic.Pointer[peerPlace]
	// forwarded: pages whose displays are on siblings (under mu)
	forwarded map[*presenterLeg]struct{}
	// nextSlot: the sample slot the next granted session gets
	nextSlot int

	// the relay phase's event loops (one per P), made with the first relay
	loopsOnce sync.Once
	loops     []*edgeloop.Loop
	loopsErr  error
	loopTurn  atomic.Uint32
}

// NewEngine makes an engine; nothing runs until Serve is given a socket.
func NewEngine(options Options, node Node, log *slog.Logger) *Engine {
	if options.CloseGrace == 0 {
		options.CloseGrace = 5 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Engine{
		options: options, node: node, log: log, base: time.Now(),
		shutdown: ctx, shutdownCancel: cancel,
		sessions: map[*session]struct{}{}, byID: map[string]*session{}, relayEnded: make(chan struct{}, 1), desk: newPresenterDesk(), forwarded: map[*presenterLeg]struct{}{},
	}
}

// now is the engine's monotonic clock in nanoseconds.
func (e *Engine) now() int64 { return int64(time.Since(e.base)) }

// Serve runs one upgraded data socket to its end. granted gives back the
// front door's pending place (called when Node grants the session, and
// again, harmlessly, at the end).
func (e *Engine) Serve(ws *websocket.Conn, sessionID, clientAddress string, granted func()) {
	s := newSession(e, ws, sessionID, clientAddress)
	e.mu.Lock()
	e.sessions[s] = struct{}{}
	e.running.Add(1)
	e.goodbyes.Add(1)
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.sessions, s)
		e.retired.add(s.figures.unsampled())
		e.mu.Unlock()
		e.running.Done()
	}()
	s.run(granted)
}

// nextLoop is the event loop for the next relaying session's two legs (in turn).
func (e *Engine) nextLoop() (*edgeloop.Loop, error) {
	e.loopsOnce.Do(func() {
		for range runtime.GOMAXPROCS(0) {
			loop, err := edgeloop.New(serverReadBytes)
			if err != nil {
				e.loopsErr = err
				return
			}
			e.loops = append(e.loops, loop)
		}
	})
	if e.loopsErr != nil {
		return nil, e.loopsErr
	}
	return e.loops[int(e.loopTurn.Add(1))%len(e.loops)], nil
}

// grant records a session Node granted: sampled from now on.
func (e *Engine) grant(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.byID[s.id] = s
	s.figures.sampleSlot = e.nextSlot
	e.nextSlot = (e.nextSlot + 1) % SampleSlices
}

// admit counts a session against MaxSessions; false when the gateway is full.
func (e *Engine) admit() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.options.MaxSessions > 0 && e.admitted >= e.options.MaxSessions {
		return false
	}
	e.admitted++
	return true
}

func (e *Engine) leave() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.admitted--
}

// Stop ends a relaying session from outside (an admin's stop); a session
// still in its handshake is not stopped, as in the Node engine.
func (e *Engine) Stop(sessionID, reason string) {
	if reason == "" {
		reason = rpc.ReasonStopped
	}
	// a presenter page still waiting for its display is stopped too (presenterChannel.ts)
	e.desk.stop(sessionID, reason)
	e.mu.Lock()
	s := e.byID[sessionID]
	e.mu.Unlock()
	if s == nil {
		return
	}
	if reason == "" {
		reason = rpc.ReasonStopped
	}
	go s.stop(reason)
}

// SetInput lets the display's input PDUs through to the session's server, or
// drops them (pdu.DropInput): the presenter's permission (issue 30). Off
// until Node says otherwise; an unknown session is ignored (Node tells a
// session once it is secured, and again at each change).
func (e *Engine) SetInput(sessionID string, allowed bool) {
	e.mu.Lock()
	s := e.byID[sessionID]
	e.mu.Unlock()
	if s != nil {
		s.input.allowed.Store(allowed)
	}
}

// Drain ends every handshake at once, lets relaying sessions run until the
// deadline, ends those left with gateway-shutdown, and returns when every
// data socket has said goodbye.
func (e *Engine) Drain(deadline time.Duration) {
	e.draining.Store(true)
	e.shutdownCancel()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for {
		e.mu.Lock()
		left := e.relaying
		e.mu.Unlock()
		if left == 0 {
			break
		}
		select {
		case <-timer.C:
			e.endAll(rpc.ReasonGatewayShutdown)
			e.goodbyes.Wait()
			return
		case <-e.relayEnded:
		}
	}
	e.endAll(rpc.ReasonGatewayShutdown)
	e.goodbyes.Wait()
}

// Wait returns when every data socket has closed (after a drain: the displays' close frames, or the grace).
func (e *Engine) Wait() { e.running.Wait() }

// ending: s has ended (its goodbye is being said): no longer sampled, stopped or relaying.
func (e *Engine) ending(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byID[s.id] == s {
		delete(e.byID, s.id)
	}
	if s.life.relaying {
		s.life.relaying = false
		e.relaying--
		select {
		case e.relayEnded <- struct{}{}:
		default:
		}
	}
}

// startRelay counts s as relaying (a drain waits for it).
func (e *Engine) startRelay(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s.life.relaying = true
	e.relaying++
}

func (e *Engine) endAll(reason string) {
	e.mu.Lock()
	all := make([]*session, 0, len(e.sessions))
	for s := range e.sessions {
		all = append(all, s)
	}
	forwarded := make([]*presenterLeg, 0, len(e.forwarded))
	for p := range e.forwarded {
		forwarded = append(forwarded, p)
	}
	e.mu.Unlock()
	for _, p := range forwarded {
		go p.end(presenterGoodbye{reason: reason})
	}
	for _, s := range all {
		go s.stop(reason)
	}
}

// Sessions counts the data sockets open now.
func (e *Engine) Sessions() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.sessions)
}
