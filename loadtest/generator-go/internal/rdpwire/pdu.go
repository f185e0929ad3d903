// Package rdpwire holds the byte formats the load test's Go programs share
// (the generator, the echo host): RDP PDU headers (TPKT and fast-path),
// counting and cutting PDUs out of a stream, the X.224 handshake that
// precedes TLS, and the load test's own request PDUs. Pure: bytes in,
// values out; no sockets. The formats are written once in TypeScript
// (@lanterna/protocol, loadtest/src/tpktPdu.ts, sizedRequest.ts); this is
// their Go twin, checked against the same cases in the tests.
package rdpwire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrNotPdu: a first byte that is neither TPKT (0x03) nor a fast-path header.
var ErrNotPdu = errors.New("bytes that start no rdp pdu")

// HeaderLength returns the PDU's total length once enough header bytes are in
// (TPKT: 4; fast-path: 2 or 3).
func HeaderLength(header []byte) (length int, complete bool, err error) {
	first := header[0]
	if first == 0x03 {
		if len(header) < 4 {
			return 0, false, nil
		}
		length = int(binary.BigEndian.Uint16(header[2:4]))
		if length < 4 {
			return 0, false, fmt.Errorf("tpkt length %d", length)
		}
		return length, true, nil
	}
	if first&0x03 != 0 {
		return 0, false, fmt.Errorf("%w (first byte 0x%02x)", ErrNotPdu, first)
	}
	if len(header) < 2 {
		return 0, false, nil
	}
	if header[1]&0x80 == 0 {
		length = int(header[1])
		if length < 2 {
			return 0, false, fmt.Errorf("fast-path length %d", length)
		}
		return length, true, nil
	}
	if len(header) < 3 {
		return 0, false, nil
	}
	length = int(header[1]&0x7f)<<8 | int(header[2])
	if length < 3 {
		return 0, false, fmt.Errorf("fast-path length %d", length)
	}
	return length, true, nil
}

// Counter counts whole RDP PDUs (TPKT or fast-path) in a chunked stream,
// keeping nothing but the header bytes of the PDU in progress: the Go twin of
// the protocol package's PduStreamCounter in its `rdp` mode.
type Counter struct {
	header    [4]byte
	headerLen int
	// bytes still to come of the PDU whose header was read
	remaining int
}

// Push returns how many PDUs the chunk completed.
func (c *Counter) Push(chunk []byte) (int, error) {
	completed := 0
	for len(chunk) > 0 {
		if c.remaining > 0 {
			take := min(c.remaining, len(chunk))
			c.remaining -= take
			chunk = chunk[take:]
			if c.remaining == 0 {
				completed++
			}
			continue
		}
		c.header[c.headerLen] = chunk[0]
		c.headerLen++
		chunk = chunk[1:]
		length, complete, err := HeaderLength(c.header[:c.headerLen])
		if err != nil {
			return completed, err
		}
		if !complete {
			continue
		}
		c.remaining = length - c.headerLen
		c.headerLen = 0
		if c.remaining == 0 {
			completed++
		}
	}
	return completed, nil
}

// AtBoundary: no PDU in progress.
func (c *Counter) AtBoundary() bool { return c.remaining == 0 && c.headerLen == 0 }

// FirstPduReader collects one PDU from a stream's chunks during a handshake,
// with a size cap, and keeps what followed it.
type FirstPduReader struct {
	buf []byte
	Max int
}

// Push returns the PDU and the bytes after it once it is complete.
func (r *FirstPduReader) Push(chunk []byte) (pdu, rest []byte, done bool, err error) {
	r.buf = append(r.buf, chunk...)
	if len(r.buf) > r.Max && len(r.buf) >= 4 {
		if length, ok, _ := HeaderLength(r.buf[:4]); !ok || length > r.Max {
			return nil, nil, false, fmt.Errorf("first pdu over %d bytes", r.Max)
		}
	}
	if len(r.buf) < 4 {
		return nil, nil, false, nil
	}
	length, ok, err := HeaderLength(r.buf[:4])
	if err != nil {
		return nil, nil, false, err
	}
	if !ok || len(r.buf) < length {
		return nil, nil, false, nil
	}
	return r.buf[:length], r.buf[length:], true, nil
}
