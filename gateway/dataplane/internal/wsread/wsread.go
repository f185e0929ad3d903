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

import ()

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

func (r *Reader) endFrame() {
	r.inFrame = false
	r.remaining = 0
}

func (r *Reader) deliver(kind Kind, p []byte, handle func(Kind, []byte) bool) {
	if !handle(kind, p) {
		r.done = true
	}
}
