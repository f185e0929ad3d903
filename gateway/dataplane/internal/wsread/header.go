package wsread

// A frame's header: gathered when it straddles chunks, its first two bytes
// checked in gorilla's order and words, then its frame begun (a data frame's
// length checked against the limit before any of its payload is read).

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
)

// readHeader consumes the next frame header, or as much of it as chunk
// holds, and reports how many bytes it took. r.inFrame says whether the
// header is now whole.
func (r *Reader) readHeader(chunk []byte) (int, error) {
	if r.hdrLen == 0 && len(chunk) >= 2 {
		size, err := r.check(chunk[0], chunk[1])
		if err != nil {
			return 0, err
		}
		if len(chunk) >= size {
			return size, r.begin(chunk[:size])
		}
	}
	return r.gatherHeader(chunk)
}

// gatherHeader copies a header that straddles chunks into r.hdr. Its size
// is only known once the first two bytes are in, and those are checked then
// (again on each later piece, which is cheap and keeps no extra state).
func (r *Reader) gatherHeader(chunk []byte) (int, error) {
	n := 0
	if r.hdrLen < 2 {
		n = copy(r.hdr[r.hdrLen:2], chunk)
		r.hdrLen += n
		if r.hdrLen < 2 {
			return n, nil
		}
	}
	size, err := r.check(r.hdr[0], r.hdr[1])
	if err != nil {
		return n, err
	}
	m := copy(r.hdr[r.hdrLen:size], chunk[n:])
	r.hdrLen += m
	n += m
	if r.hdrLen < size {
		return n, nil
	}
	r.hdrLen = 0
	return n, r.begin(r.hdr[:size])
}

// check validates a header's first two bytes, as gorilla does before it
// reads the rest, and returns the header's size.
func (r *Reader) check(b0, b1 byte) (int, error) {
	op := Kind(b0 & 0x0f)
	fin := b0&0x80 != 0
	len7 := b1 & 0x7f
	ok := b0&0x70 == 0 && b1&0x80 != 0
	switch op {
	case Text, Binary:
		ok = ok && !r.fragmented
	case continuation:
		ok = ok && r.fragmented
	case Close, Ping, Pong:
		ok = ok && fin && len7 <= maxControlPayload
	default:
		ok = false
	}
	if !ok {
		return 0, r.headerError(b0, b1)
	}
	switch len7 {
	case 126:
		return 2 + 2 + 4, nil
	case 127:
		return 2 + 8 + 4, nil
	}
	return 2 + 4, nil
}

// headerError lists every fault of the first two bytes, in gorilla's order
// and words, so that a display's log reads the same as before.
func (r *Reader) headerError(b0, b1 byte) error {
	var faults []string
	for _, rsv := range []struct {
		bit  byte
		name string
	}{{0x40, "RSV1 set"}, {0x20, "RSV2 set"}, {0x10, "RSV3 set"}} {
		if b0&rsv.bit != 0 {
			faults = append(faults, rsv.name)
		}
	}
	switch op := Kind(b0 & 0x0f); op {
	case Close, Ping, Pong:
		if b1&0x7f > maxControlPayload {
			faults = append(faults, "len > 125 for control")
		}
		if b0&0x80 == 0 {
			faults = append(faults, "FIN not set on control")
		}
	case Text, Binary:
		if r.fragmented {
			faults = append(faults, "data before FIN")
		}
	case continuation:
		if !r.fragmented {
			faults = append(faults, "continuation after FIN")
		}
	default:
		faults = append(faults, "bad opcode "+strconv.Itoa(int(op)))
	}
	if b1&0x80 == 0 {
		faults = append(faults, "bad MASK")
	}
	return protocolError(strings.Join(faults, ", "))
}

// begin takes a whole, checked header and sets up its frame. A data frame's
// length is checked against the limit here, before any of its payload is
// held, so that a peer cannot make the reader allocate by announcing.
func (r *Reader) begin(h []byte) error {
	length := int64(h[1] & 0x7f)
	switch length {
	case 126:
		length = int64(binary.BigEndian.Uint16(h[2:]))
	case 127:
		u := binary.BigEndian.Uint64(h[2:])
		if u > math.MaxInt64 {
			return tooBig()
		}
		length = int64(u)
	}
	r.op = Kind(h[0] & 0x0f)
	r.fin = h[0]&0x80 != 0
	copy(r.key[:], h[len(h)-4:])
	r.frameLen, r.remaining = length, length
	if r.op < Close {
		if err := r.beginData(length); err != nil {
			return err
		}
	}
	r.inFrame = true
	return nil
}

func (r *Reader) beginData(length int64) error {
	if r.op != continuation {
		r.msgKind = r.op
		r.msgLen = 0
	}
	if length > math.MaxInt64-r.msgLen {
		return tooBig()
	}
	if r.limit > 0 && r.msgLen+length > int64(r.limit) {
		return tooBig()
	}
	r.msgLen += length
	r.fragmented = !r.fin
	return nil
}
