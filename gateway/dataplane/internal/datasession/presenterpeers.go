package datasession

// A presenter page and its display on different workers of one gateway
// (docs/browser-presenter.md, "Several workers"). The workers' data planes
// share the port (SO_REUSEPORT): the kernel picks a process per TCP
// connection, long before the path is known, so the page's socket may land
// on worker B and its display's data socket on worker A. Each data plane
// listens on a Unix socket of its own in a directory the gateway's workers
// share (0700, the gateway's user): A's display session, finding no presenter
// on its own desk, asks its siblings in turn; B hands over the page waiting on
// its desk and from then forwards: the page's messages to A, A's binary
// messages and its goodbye to the page. A runs the join and the relay as for
// a local page (the same presenterLeg, its transport the Unix connection);
// B keeps the page's socket, its reader, its write deadlines and its goodbye.
// Node decided both halves: B's Node judged the page's token, A's the
// display's grant.
//
// The peer wire: A sends one line `{"take":"<sessionId>"}`; B answers one line,
// `{"ok":true,"identity":{…}}` or `{"ok":false}`; then frames both ways,
// a kind byte and a 4-byte big-endian length, then the payload (at most
// relay.maxFrameBytes; a goodbye's JSON at most 64 KiB): A → B `B`/`T` (binary
// and text for the page: the display's PDUs, the page's `pace`) and `G` (the
// page's goodbye); B → A `T`/`B` (the page's text and binary messages). B closing its end: the page's socket ended.

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
)

const (
	frameBinary  = 'B'
	frameText    = 'T'
	frameGoodbye = 'G'
	// peerDial bounds a sibling's dial, its answer and the take line.
	peerDial = time.Second
	// peerPoll: how often a display without its presenter asks its siblings again.
	peerPoll = 100 * time.Millisecond
	// maxGoodbyeBytes caps a goodbye frame.
	maxGoodbyeBytes = 64 << 10
)

// peerPlace is where an engine's siblings are, and its own socket among them.
type peerPlace struct{ dir, self string }

// peerListeners numbers a process's peer sockets (one per engine; tests run several).
var peerListeners atomic.Int32

type peerTake struct {
	Take string `json:"take"`
}

type peerAnswer struct {
	OK       bool               `json:"ok"`
	Identity *rpc.PresentAnswer `json:"identity,omitempty"`
}

type peerGoodbye struct {
	Err    *rpc.EndedError `json:"err,omitempty"`
	Reason string          `json:"reason,omitempty"`
	Silent bool            `json:"silent,omitempty"`
}

// ListenPeers makes this engine reachable by its siblings at dir/<pid>-<n>.sock
// (dir: the gateway's shared directory, made 0700 by Node). Close the
// listener to stop; the socket file goes with it.
func (e *Engine) ListenPeers(dir string) (net.Listener, error) {
	path := filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(int(peerListeners.Add(1)))+".sock")
	// a socket left by a process that had this pid before
	_ = os.Remove(path)
	listener, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	e.peers.Store(&peerPlace{dir: dir, self: path})
	go func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			go e.servePeer(conn)
		}
	}()
	return listener, nil
}

// servePeer is B's side: a sibling asks for a page waiting here.
func (e *Engine) servePeer(conn net.Conn) {
	_ = conn.SetDeadline(time.Now().Add(peerDial))
	reader := bufio.NewReaderSize(conn, 4<<10)
	line, err := reader.ReadSlice('\n')
	var take peerTake
	if err != nil || json.Unmarshal(line, &take) != nil {
		_ = conn.Close()
		return
	}
	p := e.desk.takeForward(take.Take)
	if p == nil {
		_ = writeLine(conn, peerAnswer{OK: false})
		_ = conn.Close()
		return
	}
	// counted as relaying here: a drain lets it run to its deadline, as the display's session on A
	e.startForward(p)
	err = writeLine(conn, peerAnswer{OK: true, Identity: &p.identity})
	_ = conn.SetDeadline(time.Time{})
	if err == nil {
		p.forward = conn
	}
	// from here the page's reader forwards (or, without a sibling, drops)
	close(p.forwardReady)
	if err != nil {
		p.end(presenterGoodbye{reason: rpc.ReasonClientClosed})
		_ = conn.Close()
		return
	}
	p.log.Info("presenter page handed to its display's worker", "event", "presenter-forwarded")
	// A's frames: binary for the page, then its goodbye
	for {
		kind, payload, err := readFrame(reader, e.options.Relay.MaxFrameBytes)
		if err != nil {
			// A is gone (its worker ended): the page hears the display left
			p.end(presenterGoodbye{reason: rpc.ReasonClientClosed})
			break
		}
		if kind == frameGoodbye {
			var goodbye peerGoodbye
			_ = json.Unmarshal(payload, &goodbye)
			p.end(goodbye.local())
			break
		}
		if kind == frameBinary || kind == frameText {
			message := websocket.BinaryMessage
			if kind == frameText {
				message = websocket.TextMessage
			}
			if err := p.writeLocal(message, payload); err != nil {
				// the page's write deadline: A hears it as a page that left
				p.end(presenterGoodbye{reason: rpc.ReasonClientClosed})
				break
			}
		}
	}
	_ = conn.Close()
}

// forwardMessage is B's dispatch for a handed-over page: the message to A.
// A that does not read stops this reader (the page's TCP pushes back).
func (p *presenterLeg) forwardMessage(message presenterMessage) {
	kind := byte(frameBinary)
	if message.kind == websocket.TextMessage {
		kind = frameText
	}
	if err := p.writeFrame(p.forward, kind, message.data); err != nil {
		p.end(presenterGoodbye{reason: rpc.ReasonClientClosed})
	}
}

// writeBinary sends the page one binary message: over its socket, or to the sibling that holds it.
func (p *presenterLeg) writeBinary(data []byte) error {
	return p.write(websocket.BinaryMessage, frameBinary, data)
}

// writeText sends the page one JSON message (its `pace`) the same way.
func (p *presenterLeg) writeText(data []byte) error {
	return p.write(websocket.TextMessage, frameText, data)
}

func (p *presenterLeg) write(message int, frame byte, data []byte) error {
	if p.remote == nil {
		return p.writeLocal(message, data)
	}
	if p.state.Load() == presenterEnded {
		return errPresenterEnded
	}
	return p.writeFrame(p.remote, frame, data)
}

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
		frame.Err = &rpc.EndedError{Phase: goodbye.err.Phase, Code: goodbye.err.Code, Message: p.messageOf(goodbye.err), Detail: nonNil(goodbye.err.Detail)}
	}
	body, _ := json.Marshal(frame)
	_ = p.writeFrame(p.remote, frameGoodbye, body)
	_ = p.remote.Close()
}

func (g peerGoodbye) local() presenterGoodbye {
	goodbye := presenterGoodbye{reason: g.Reason, silent: g.Silent}
	if g.Err != nil {
		goodbye.err = &sessionerr.Error{Phase: g.Err.Phase, Code: g.Err.Code, Message: g.Err.Message, Detail: nonNil(g.Err.Detail), Internal: map[string]any{}}
	}
	return goodbye
}

// writeFrame sends one frame under the leg's write lock, within timeouts.writeMs (or the close grace).
func (p *presenterLeg) writeFrame(conn net.Conn, kind byte, payload []byte) error {
	if conn == nil {
		return errPresenterEnded
	}
	p.frameMu.Lock()
	defer p.frameMu.Unlock()
	limit := time.Duration(p.engine.options.Timeouts.WriteMs) * time.Millisecond
	if limit <= 0 {
		limit = p.engine.options.CloseGrace
	}
	_ = conn.SetWriteDeadline(time.Now().Add(limit))
	var header [5]byte
	header[0] = kind
	binary.BigEndian.PutUint32(header[1:], uint32(len(payload)))
	_, err := (&net.Buffers{header[:], payload}).WriteTo(conn)
	if err != nil && isTimeout(err) {
		p.remoteStalled.Store(true)
	}
	return err
}

// readFrame reads one frame of at most limit bytes (a goodbye's at most maxGoodbyeBytes).
func readFrame(reader *bufio.Reader, limit int) (byte, []byte, error) {
	var header [5]byte
	if _, err := io.ReadFull(reader, header[:]); err != nil {
		return 0, nil, err
	}
	kind, size := header[0], int(binary.BigEndian.Uint32(header[1:]))
	if kind != frameBinary && kind != frameText && kind != frameGoodbye {
		return 0, nil, fmt.Errorf("a peer frame of kind %q", kind)
	}
	if kind == frameGoodbye {
		limit = maxGoodbyeBytes
	}
	if size > limit {
		return 0, nil, fmt.Errorf("a peer frame of %d bytes, more than %d", size, limit)
	}
	payload := make([]byte, size)
	if _, err := io.ReadFull(reader, payload); err != nil {
		return 0, nil, err
	}
	return kind, payload, nil
}

func writeLine(conn net.Conn, value any) error {
	body, _ := json.Marshal(value)
	_, err := conn.Write(append(body, '\n'))
	return err
}

// takeForward hands a page waiting here to a sibling's display: nil when none waits.
func (d *presenterDesk) takeForward(sessionID string) *presenterLeg {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.waiting[sessionID]
	if !ok || strings.TrimSpace(sessionID) == "" {
		return nil
	}
	delete(d.waiting, sessionID)
	if !p.state.CompareAndSwap(presenterWaiting, presenterForwarded) {
		return nil
	}
	close(p.taken)
	return p
}

// startForward counts a page forwarded to a sibling as relaying (a drain waits for it, then ends it).
func (e *Engine) startForward(p *presenterLeg) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p.counted = true
	e.forwarded[p] = struct{}{}
	e.relaying++
}

// endForward: a forwarded page's goodbye is said.
func (e *Engine) endForward(p *presenterLeg) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !p.counted {
		return
	}
	p.counted = false
	delete(e.forwarded, p)
	e.relaying--
	select {
	case e.relayEnded <- struct{}{}:
	default:
	}
}
