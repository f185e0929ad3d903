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
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
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
