// Package wsread parses the frames a WebSocket server receives (RFC 6455,
// client to server, no extensions) from whatever chunks a non-blocking read
// returns. The relay phase's event loop owns the display's socket and must
// never block in a read, while gorilla/websocket's reader pulls bytes until a
// frame is whole and treats a would-block as a fatal error; so this reader is
// pushed bytes instead, and hands over each complete message and control
// frame as it becomes whole.
//
// The rules and the error wording are those of gorilla/websocket v1.5.3's
// server side (advanceFrame, handleProtocolError), so that moving the relay
// onto this reader changes neither what a display may send nor what it is
// told when it breaks the protocol. One deliberate difference: a 1-byte close
// payload, which gorilla reads as "no status", is refused as RFC 6455 §5.5.1
// requires.
//
// The hot path is a chunk holding whole small frames: each is unmasked in
// place and handed over as a slice of the chunk, with no copy and no
// allocation. Only what straddles chunks is copied.
package wsread

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind of a complete message or control frame handed to the handler: the
// frame opcode.
type Kind int

// The opcodes a handler sees.
const (
	Text   Kind = 1
	Binary Kind = 2
	Close  Kind = 8
	Ping   Kind = 9
	Pong   Kind = 10
)

// continuation is the opcode of a data message's second and later frames; a
// handler never sees it.
const continuation Kind = 0

const (
	closeProtocolError = 1002
	closeMessageTooBig = 1009

	maxControlPayload = 125
	// maxHeader: two fixed bytes, a 64-bit length, a mask key.
	maxHeader = 2 + 8 + 4

	// keepBuffer bounds the reassembly buffer a connection keeps between
	// messages: a rare big message should not pin its memory for the
	// connection's life.
	keepBuffer = 256 << 10
	// minBuffer avoids a run of tiny reallocations at the start of a
	// straddling message.
	minBuffer = 512
)

// ProtocolError reports that the peer broke the protocol or a limit.
// CloseCode is the close code a server answers with (1002 protocol error,
// 1009 message too big) and Message a short reason in gorilla's words.
type ProtocolError struct {
	CloseCode int
	Message   string
}

// Error has gorilla's prefix so that log lines read the same whichever
// reader refused the peer.
func (e *ProtocolError) Error() string { return "websocket: " + e.Message }

func protocolError(message string) *ProtocolError {
	return &ProtocolError{CloseCode: closeProtocolError, Message: message}
}

// tooBig is gorilla's ErrReadLimit, which it answers with 1009.
func tooBig() *ProtocolError {
	return &ProtocolError{CloseCode: closeMessageTooBig, Message: "read limit exceeded"}
}

// Reader is one connection's incoming frame state. Not safe for concurrent
// use.
type Reader struct {
	limit int

	// hdr gathers a frame header split across chunks.
	hdr    [maxHeader]byte
	hdrLen int

	// The frame whose header is whole and whose payload is still arriving.
	inFrame   bool
	op        Kind
	fin       bool
	key       [4]byte
	frameLen  int64
	remaining int64

	// fragmented: the last data frame lacked FIN (gorilla's !readFinal), so
	// only continuations may follow.
	fragmented bool
	msgKind    Kind
	// msgLen counts the declared lengths of the message's frames so far, so
	// that the limit is enforced before their payloads arrive.
	msgLen int64
	// buf joins a data message that straddles chunks or frames.
	buf []byte
	// ctrl holds a straddling control frame apart from buf, since control
	// frames may arrive between a data message's fragments.
	ctrl [maxControlPayload]byte

	err  error
	done bool
}

// New returns a reader whose data messages (text or binary, all fragments
// together) may be at most limit bytes. As in gorilla, a limit of zero or
// less means no limit.
func New(limit int) *Reader { return &Reader{limit: limit} }

// SetLimit changes the data message limit; it applies from the next frame
// header, since a header already read has been checked against the old one.
func (r *Reader) SetLimit(limit int) { r.limit = limit }

// Buffered reports how many bytes of an incomplete frame or message the
// reader holds.
func (r *Reader) Buffered() int {
	n := r.hdrLen + len(r.buf)
	if r.inFrame && r.op >= Close {
		n += int(r.frameLen - r.remaining)
	}
	return n
}

// Feed parses chunk, the next bytes of the stream, unmasking payloads in
// place. For every complete data message (fragments joined) and every
// control frame it calls handle(kind, payload); payload is valid only during
// the call. A Close payload is empty or a valid received close code followed
// by UTF-8 text. When handle returns false Feed stops at once and returns
// nil, dropping the rest of chunk.
//
// Like gorilla, the reader reads nothing after a close frame: later Feeds,
// like those after handle returned false, do nothing and return nil. After
// a protocol or limit violation Feed returns a *ProtocolError, and the same
// error again on every later call.
func (r *Reader) Feed(chunk []byte, handle func(kind Kind, payload []byte) bool) error {
	if r.err != nil {
		return r.err
	}
	for !r.done {
		if !r.inFrame {
			if len(chunk) == 0 {
				return nil
			}
			n, err := r.readHeader(chunk)
			if err != nil {
				return r.fail(err)
			}
			chunk = chunk[n:]
			if !r.inFrame {
				return nil
			}
		}
		// A frame with an empty payload is whole once its header is, even
		// when the header ended the chunk.
		if r.remaining > 0 && len(chunk) == 0 {
			return nil
		}
		var n int
		var err error
		if r.op >= Close {
			n, err = r.readControl(chunk, handle)
		} else {
			n, err = r.readData(chunk, handle)
		}
		if err != nil {
			return r.fail(err)
		}
		chunk = chunk[n:]
	}
	return nil
}

func (r *Reader) fail(err error) error {
	r.err = err
	return err
}

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

// readData consumes payload of the current data frame.
func (r *Reader) readData(chunk []byte, handle func(Kind, []byte) bool) (int, error) {
	if r.op != continuation && r.fin && r.remaining == r.frameLen && int64(len(chunk)) >= r.remaining {
		// A whole single-frame message: the common case, handed over in place.
		n := int(r.remaining)
		p := chunk[:n:n]
		unmask(r.key, 0, p)
		r.endFrame()
		r.deliver(r.msgKind, p, handle)
		return n, nil
	}
	n := len(chunk)
	if int64(n) > r.remaining {
		n = int(r.remaining)
	}
	p := chunk[:n]
	unmask(r.key, int((r.frameLen-r.remaining)&3), p)
	r.grow(n)
	r.buf = append(r.buf, p...)
	r.remaining -= int64(n)
	if r.remaining > 0 {
		return n, nil
	}
	r.endFrame()
	if r.fin {
		r.deliver(r.msgKind, r.buf, handle)
		r.releaseBuffer()
	}
	return n, nil
}

// grow makes room for n more bytes of the message, doubling so that a large
// message costs few copies, but never beyond what the headers read so far
// have announced: the limit was checked against that, and a peer that
// announces much and sends little costs no more than it sent, twice over.
func (r *Reader) grow(n int) {
	need := len(r.buf) + n
	if need <= cap(r.buf) {
		return
	}
	want := max(2*cap(r.buf), minBuffer)
	if announced := int64(len(r.buf)) + r.remaining; announced < int64(want) {
		want = int(announced)
	}
	want = max(want, need)
	grown := make([]byte, len(r.buf), want)
	copy(grown, r.buf)
	r.buf = grown
}

func (r *Reader) releaseBuffer() {
	if cap(r.buf) > keepBuffer {
		r.buf = nil
		return
	}
	r.buf = r.buf[:0]
}

// readControl consumes payload of the current control frame.
func (r *Reader) readControl(chunk []byte, handle func(Kind, []byte) bool) (int, error) {
	var p []byte
	var n int
	if r.remaining == r.frameLen && int64(len(chunk)) >= r.remaining {
		n = int(r.remaining)
		p = chunk[:n:n]
		unmask(r.key, 0, p)
	} else {
		got := int(r.frameLen - r.remaining)
		n = copy(r.ctrl[got:r.frameLen], chunk)
		unmask(r.key, got&3, r.ctrl[got:got+n])
		r.remaining -= int64(n)
		if r.remaining > 0 {
			return n, nil
		}
		p = r.ctrl[:r.frameLen:r.frameLen]
	}
	r.endFrame()
	if r.op == Close {
		if err := checkClose(p); err != nil {
			return n, err
		}
		// gorilla's reader fails for good with a CloseError after a close
		// frame, so whatever follows it is never read.
		r.done = true
	}
	r.deliver(r.op, p, handle)
	return n, nil
}

func (r *Reader) endFrame() {
	r.inFrame = false
	r.remaining = 0
}

func (r *Reader) deliver(kind Kind, p []byte, handle func(Kind, []byte) bool) {
	if !handle(kind, p) {
		r.done = true
	}
}

func checkClose(p []byte) error {
	switch len(p) {
	case 0:
		return nil
	case 1:
		return protocolError("close payload of 1 byte")
	}
	code := int(binary.BigEndian.Uint16(p))
	if !validReceivedCloseCode(code) {
		return protocolError("bad close code " + strconv.Itoa(code))
	}
	if !utf8.Valid(p[2:]) {
		return protocolError("invalid utf8 payload in close frame")
	}
	return nil
}

// validReceivedCloseCode is gorilla's isValidReceivedCloseCode: the codes a
// peer may send, leaving out those reserved for local use (1005, 1006, 1015)
// and unassigned ones.
func validReceivedCloseCode(code int) bool {
	switch code {
	case 1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013:
		return true
	}
	return code >= 3000 && code <= 4999
}

// unmask XORs b with the mask key, b starting at offset pos of the payload
// (pos matters when a payload is unmasked piece by piece across chunks).
// It works a word at a time, the unmasking being most of a large frame's
// cost.
func unmask(key [4]byte, pos int, b []byte) {
	if len(b) >= 8 {
		k32 := bits.RotateLeft32(binary.LittleEndian.Uint32(key[:]), -8*(pos&3))
		k := uint64(k32) | uint64(k32)<<32
		for len(b) >= 32 {
			w := b[:32:32]
			binary.LittleEndian.PutUint64(w[0:], binary.LittleEndian.Uint64(w[0:])^k)
			binary.LittleEndian.PutUint64(w[8:], binary.LittleEndian.Uint64(w[8:])^k)
			binary.LittleEndian.PutUint64(w[16:], binary.LittleEndian.Uint64(w[16:])^k)
			binary.LittleEndian.PutUint64(w[24:], binary.LittleEndian.Uint64(w[24:])^k)
			b = b[32:]
		}
		for len(b) >= 8 {
			binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)^k)
			b = b[8:]
		}
	}
	for i := range b {
		b[i] ^= key[(pos+i)&3]
	}
}
