package main

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// pduCounter counts whole RDP PDUs (TPKT or fast-path) in a chunked stream,
// keeping nothing but the header bytes of the PDU in progress: the Go twin of
// the protocol package's PduStreamCounter in its `rdp` mode.
type pduCounter struct {
	header    [4]byte
	headerLen int
	// bytes still to come of the PDU whose header was read
	remaining int
}

var errNotPdu = errors.New("bytes that start no rdp pdu")

// headerLength returns the PDU's total length once enough header bytes are in.
func headerLength(header []byte) (length int, complete bool, err error) {
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
		return 0, false, fmt.Errorf("%w (first byte 0x%02x)", errNotPdu, first)
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

// push returns how many PDUs the chunk completed.
func (c *pduCounter) push(chunk []byte) (int, error) {
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
		length, complete, err := headerLength(c.header[:c.headerLen])
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

// atBoundary: no PDU in progress.
func (c *pduCounter) atBoundary() bool { return c.remaining == 0 && c.headerLen == 0 }

// countWholePdus: a frame that must hold whole PDUs only (what the gateway sends the kiosk).
func countWholePdus(frame []byte) (int, error) {
	var counter pduCounter
	n, err := counter.push(frame)
	if err != nil {
		return 0, err
	}
	if !counter.atBoundary() {
		return 0, errors.New("frame ends inside a pdu")
	}
	return n, nil
}

const protocolSSL = 1

// expectTLSConfirm checks an X.224 Connection Confirm that selects TLS
// (MS-RDPBCGR 2.2.1.2): the load test's only accepted answer.
func expectTLSConfirm(pdu []byte, peer string) error {
	if len(pdu) < 11 || pdu[0] != 0x03 || int(binary.BigEndian.Uint16(pdu[2:4])) != len(pdu) || pdu[5]&0xf0 != 0xd0 {
		return fmt.Errorf("%s sent no connection confirm", peer)
	}
	if len(pdu) < 19 {
		return fmt.Errorf("%s selected protocol 0, not ssl", peer)
	}
	kind := pdu[11]
	value := binary.LittleEndian.Uint32(pdu[15:19])
	switch kind {
	case 0x02:
		if value != protocolSSL {
			return fmt.Errorf("%s selected protocol %d, not ssl", peer, value)
		}
		return nil
	case 0x03:
		return fmt.Errorf("%s refused the negotiation with code %d", peer, value)
	default:
		return fmt.Errorf("%s sent negotiation type %d", peer, kind)
	}
}

// firstPduReader collects one PDU from a stream's chunks and keeps what followed it.
type firstPduReader struct {
	buf []byte
	max int
}

// push returns the PDU and the bytes after it once it is complete.
func (r *firstPduReader) push(chunk []byte) (pdu, rest []byte, done bool, err error) {
	r.buf = append(r.buf, chunk...)
	if len(r.buf) > r.max && len(r.buf) >= 4 {
		if length, ok, _ := headerLength(r.buf[:4]); !ok || length > r.max {
			return nil, nil, false, fmt.Errorf("first pdu over %d bytes", r.max)
		}
	}
	if len(r.buf) < 4 {
		return nil, nil, false, nil
	}
	length, ok, err := headerLength(r.buf[:4])
	if err != nil {
		return nil, nil, false, err
	}
	if !ok || len(r.buf) < length {
		return nil, nil, false, nil
	}
	return r.buf[:length], r.buf[length:], true, nil
}
