package datasession

// A's side of a page on a sibling (presenterpeers.go): the display's search
// of its own desk and its siblings', and the remote leg it runs the join and
// the relay over.

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
)

// findPresenter is the display's search: its own desk, and, with siblings,
// theirs, until timeout or ctx ends.
func (e *Engine) findPresenter(ctx context.Context, s *session, timeout time.Duration) *presenterLeg {
	if e.peers.Load() == nil {
		return e.desk.take(ctx, s, timeout)
	}
	searching, stop := context.WithTimeout(ctx, timeout)
	defer stop()
	found := make(chan *presenterLeg, 2)
	go func() { found <- e.desk.take(searching, s, timeout) }()
	go func() { found <- e.askSiblings(searching, s) }()
	first := <-found
	stop()
	second := <-found
	if first == nil {
		return second
	}
	if second != nil {
		// one presenter per session (its token is single-use): should two come, the second is refused
		second.end(presenterGoodbye{err: sessionerr.New(sessionerr.PhaseOpen, sessionerr.CodeUnauthorized, "the session token was already used")})
	}
	return first
}

// askSiblings asks each sibling for the session's page, every peerPoll, until ctx ends.
func (e *Engine) askSiblings(ctx context.Context, s *session) *presenterLeg {
	ticker := time.NewTicker(peerPoll)
	defer ticker.Stop()
	for {
		place := e.peers.Load()
		paths, _ := filepath.Glob(filepath.Join(place.dir, "*.sock"))
		for _, path := range paths {
			if path == place.self || ctx.Err() != nil {
				continue
			}
			if p := e.askSibling(ctx, path, s); p != nil {
				return p
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// askSibling: one sibling's answer, and the remote leg when it had the page.
func (e *Engine) askSibling(ctx context.Context, path string, s *session) *presenterLeg {
	dialer := net.Dialer{Timeout: peerDial}
	conn, err := dialer.DialContext(ctx, "unix", path)
	if err != nil {
		// a worker that ended left its socket behind, or is starting
		return nil
	}
	_ = conn.SetDeadline(time.Now().Add(peerDial))
	reader := bufio.NewReaderSize(conn, 16<<10)
	var answer peerAnswer
	if writeLine(conn, peerTake{Take: s.id}) != nil {
		_ = conn.Close()
		return nil
	}
	line, err := reader.ReadSlice('\n')
	if err != nil || json.Unmarshal(line, &answer) != nil || !answer.OK || answer.Identity == nil {
		_ = conn.Close()
		return nil
	}
	_ = conn.SetDeadline(time.Time{})
	p := &presenterLeg{
		engine: e, id: s.id, log: e.log.With("sessionId", s.id, "channel", "presenter", "via", "sibling"),
		identity: *answer.Identity, remote: conn, confirm: make(chan presenterMessage, 1), taken: make(chan struct{}),
		withdrawn: make(chan presenterWithdrawal, 1), stopped: make(chan string, 1), started: make(chan struct{}),
		ended: make(chan struct{}), readerDone: make(chan struct{}), session: s,
	}
	p.state.Store(presenterConfirming)
	if rate := e.options.Relay.PresenterBytesPerSecond; rate > 0 {
		p.rate = newUploadRate(rate, time.Now())
		p.pace = newPresenterPace(time.Now())
	}
	go p.readRemote(reader)
	return p
}

// readRemote is A's reader of a page on a sibling: its messages as a local page's.
func (p *presenterLeg) readRemote(reader *bufio.Reader) {
	defer close(p.readerDone)
	for {
		kind, payload, err := readFrame(reader, p.engine.options.Relay.MaxFrameBytes)
		if err != nil {
			p.readerEnded(err)
			return
		}
		message := presenterMessage{kind: websocket.BinaryMessage, data: payload}
		if kind == frameText {
			message.kind = websocket.TextMessage
		}
		p.dispatch(message)
	}
}

// remoteGoodbye is A's end of a page on a sibling: the goodbye for B to say.
func (p *presenterLeg) remoteGoodbye(goodbye presenterGoodbye) {
	frame := peerGoodbye{Reason: goodbye.reason, Silent: goodbye.silent}
	if goodbye.err != nil {
		frame.Err = &rpc.EndedError{Phase: goodbye.err.Phase, Code: goodbye.err.Code, Message: p.engine.messageOf(goodbye.err), Detail: nonNil(goodbye.err.Detail)}
	}
	body, _ := json.Marshal(frame)
	_ = p.writeFrame(p.remote, frameGoodbye, body)
	_ = p.remote.Close()
}
