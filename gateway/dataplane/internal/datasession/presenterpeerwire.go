package datasession

// The peer wire between sibling data planes (presenterpeers.go): one JSON
// line each way, then frames of a kind byte, a 4-byte big-endian length and
// the payload, each read with a cap and written within a deadline.

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"time"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
)

type peerGoodbye struct {
	Err    *rpc.EndedError `json:"err,omitempty"`
	Reason string          `json:"reason,omitempty"`
	Silent bool            `json:"silent,omitempty"`
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
