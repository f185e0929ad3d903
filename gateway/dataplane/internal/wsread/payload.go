package wsread

// A frame's payload: a data frame's joined into its message (handed over
// in place when whole in one chunk, else gathered in the reader's buffer), a
// control frame's whole, a close payload checked, and the unmasking.

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

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
