package wsread

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

var testKey = [4]byte{0x37, 0xfa, 0x21, 0x3d}

const finBit = 0x80

// frame builds a masked client frame with the shortest length encoding.
func frame(op Kind, fin bool, payload []byte) []byte {
	b0 := byte(op)
	if fin {
		b0 |= finBit
	}
	return rawFrame(b0, true, false, payload)
}

// rawFrame builds a frame from its first byte (FIN, RSV bits, opcode), masked
// or not, with the length in 64 bits when wide (legal, if wasteful).
func rawFrame(b0 byte, masked, wide bool, payload []byte) []byte {
	n := len(payload)
	out := []byte{b0, 0}
	switch {
	case n <= 125 && !wide:
		out[1] = byte(n)
	case n <= 0xffff && !wide:
		out[1] = 126
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out[1] = 127
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	if !masked {
		return append(out, payload...)
	}
	out[1] |= 0x80
	out = append(out, testKey[:]...)
	start := len(out)
	out = append(out, payload...)
	for i := range payload {
		out[start+i] ^= testKey[i&3]
	}
	return out
}

// header is a masked data frame header announcing length in 64 bits.
func header(b0 byte, length uint64) []byte {
	out := []byte{b0, 0x80 | 127}
	out = binary.BigEndian.AppendUint64(out, length)
	return append(out, testKey[:]...)
}

func closePayload(code int, text string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, uint16(code)), text...)
}

func join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func pattern(n int, seed int64) []byte {
	p := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(p)
	return p
}

type msg struct {
	Kind Kind
	Data string
}

func (m msg) String() string {
	d := m.Data
	if len(d) > 20 {
		d = d[:20] + "…(" + strconv.Itoa(len(m.Data)) + ")"
	}
	return fmt.Sprintf("%d:%q", m.Kind, d)
}

// collector records every message and control frame, copying the payload
// since it is only valid during the call.
type collector struct {
	got    []msg
	stopAt int // stop after this many; 0: never
}

func (c *collector) handle(kind Kind, p []byte) bool {
	c.got = append(c.got, msg{kind, string(p)})
	return c.stopAt == 0 || len(c.got) < c.stopAt
}

// feedChunks feeds a copy of stream cut at the given offsets, stopping at the
// first error.
func feedChunks(r *Reader, stream []byte, cuts ...int) ([]msg, error) {
	s := bytes.Clone(stream)
	var c collector
	prev := 0
	for _, cut := range append(cuts, len(s)) {
		if err := r.Feed(s[prev:cut], c.handle); err != nil {
			return c.got, err
		}
		prev = cut
	}
	return c.got, nil
}

func feedBytewise(r *Reader, stream []byte) ([]msg, error) {
	cuts := make([]int, len(stream))
	for i := range cuts {
		cuts[i] = i
	}
	return feedChunks(r, stream, cuts...)
}

func checkMsgs(t *testing.T, what string, got, want []msg) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func TestSingleFrames(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		size int
	}{
		{Text, 0}, {Text, 5}, {Text, 125}, {Text, 126}, {Text, 65535}, {Text, 65536},
		{Binary, 0}, {Binary, 1}, {Binary, 7}, {Binary, 8}, {Binary, 33}, {Binary, 200},
		{Ping, 0}, {Ping, 125}, {Pong, 0}, {Pong, 17},
	} {
		payload := pattern(tc.size, int64(tc.size))
		for _, wide := range []bool{false, true} {
			if wide && tc.kind >= Close {
				continue // a control frame's length is always in 7 bits
			}
			r := New(1 << 20)
			got, err := feedChunks(r, rawFrame(finBit|byte(tc.kind), true, wide, payload))
			if err != nil {
				t.Fatalf("kind %d size %d wide %v: %v", tc.kind, tc.size, wide, err)
			}
			checkMsgs(t, fmt.Sprintf("kind %d size %d", tc.kind, tc.size), got, []msg{{tc.kind, string(payload)}})
			if r.Buffered() != 0 {
				t.Fatalf("kind %d size %d: Buffered %d after a whole frame", tc.kind, tc.size, r.Buffered())
			}
		}
	}
	for _, p := range [][]byte{nil, closePayload(1000, ""), closePayload(4000, "going now")} {
		got, err := feedChunks(New(10), frame(Close, true, p))
		if err != nil {
			t.Fatalf("close %q: %v", p, err)
		}
		checkMsgs(t, "close", got, []msg{{Close, string(p)}})
	}
}

// mixedStream covers every header size, fragments with control frames
// between them, empty frames, and a close at the end.
func mixedStream() ([]byte, []msg) {
	bin := pattern(300, 1)
	stream := join(
		frame(Text, true, []byte("hello")),
		frame(Binary, true, bin),
		frame(Text, false, []byte("frag-")),
		frame(Ping, true, []byte("p")),
		rawFrame(byte(continuation), true, true, []byte("men")),
		frame(Pong, true, nil),
		frame(continuation, false, nil),
		frame(continuation, true, []byte("t!")),
		frame(Binary, true, nil),
		rawFrame(finBit|byte(Text), true, true, []byte("wide length")),
		frame(Binary, false, []byte{1, 2, 3}),
		frame(continuation, true, pattern(130, 2)),
		frame(Close, true, closePayload(1000, "bye")),
	)
	want := []msg{
		{Text, "hello"},
		{Binary, string(bin)},
		{Ping, "p"},
		{Pong, ""},
		{Text, "frag-ment!"},
		{Binary, ""},
		{Text, "wide length"},
		{Binary, string(append([]byte{1, 2, 3}, pattern(130, 2)...))},
		{Close, string(closePayload(1000, "bye"))},
	}
	return stream, want
}

func TestEverySplitPoint(t *testing.T) {
	stream, want := mixedStream()

	r := New(1 << 20)
	got, err := feedBytewise(r, stream)
	if err != nil {
		t.Fatal(err)
	}
	checkMsgs(t, "byte by byte", got, want)

	for i := 0; i <= len(stream); i++ {
		got, err := feedChunks(New(1<<20), stream, i)
		if err != nil {
			t.Fatalf("split at %d: %v", i, err)
		}
		checkMsgs(t, fmt.Sprintf("split at %d", i), got, want)
	}

	if testing.Short() {
		return
	}
	for i := 0; i <= len(stream); i++ {
		for j := i; j <= len(stream); j += 3 {
			got, err := feedChunks(New(1<<20), stream, i, j)
			if err != nil {
				t.Fatalf("split at %d and %d: %v", i, j, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("split at %d and %d: got %v, want %v", i, j, got, want)
			}
		}
	}
}

func TestFragmentedWithPing(t *testing.T) {
	r := New(100)
	var c collector
	stream := join(
		frame(Binary, false, []byte("ab")),
		frame(Ping, true, []byte("are you there")),
		frame(continuation, false, []byte("cd")),
	)
	if err := r.Feed(stream, c.handle); err != nil {
		t.Fatal(err)
	}
	// The ping is handed over at once; the message waits for its last frame.
	checkMsgs(t, "before the last fragment", c.got, []msg{{Ping, "are you there"}})
	if r.Buffered() != 4 {
		t.Fatalf("Buffered %d, want 4", r.Buffered())
	}
	if err := r.Feed(frame(continuation, true, []byte("ef")), c.handle); err != nil {
		t.Fatal(err)
	}
	checkMsgs(t, "after", c.got, []msg{{Ping, "are you there"}, {Binary, "abcdef"}})
	if r.Buffered() != 0 {
		t.Fatalf("Buffered %d after the message, want 0", r.Buffered())
	}
}

type errorCase struct {
	name    string
	limit   int
	stream  []byte
	want    []msg // handed over before the error
	code    int
	message string
}

func protocolCases() []errorCase {
	x := []byte("x")
	cases := []errorCase{
		{name: "rsv1", stream: rawFrame(finBit|0x40|1, true, false, x), code: 1002, message: "RSV1 set"},
		{name: "rsv2", stream: rawFrame(finBit|0x20|2, true, false, x), code: 1002, message: "RSV2 set"},
		{name: "rsv3", stream: rawFrame(finBit|0x10|1, true, false, x), code: 1002, message: "RSV3 set"},
		{name: "several faults", stream: rawFrame(finBit|0x40|0x20|3, false, false, x), code: 1002,
			message: "RSV1 set, RSV2 set, bad opcode 3, bad MASK"},
		{name: "unmasked", stream: rawFrame(finBit|1, false, false, x), code: 1002, message: "bad MASK"},
		{name: "unmasked after a good frame", stream: join(frame(Text, true, x), rawFrame(finBit|2, false, false, x)),
			want: []msg{{Text, "x"}}, code: 1002, message: "bad MASK"},
		{name: "long ping", stream: frame(Ping, true, make([]byte, 126)), code: 1002, message: "len > 125 for control"},
		{name: "long close", stream: frame(Close, true, closePayload(1000, strings.Repeat("a", 200))), code: 1002,
			message: "len > 125 for control"},
		{name: "close without FIN", stream: frame(Close, false, closePayload(1000, "")), code: 1002,
			message: "FIN not set on control"},
		{name: "long pong without FIN", stream: frame(Pong, false, make([]byte, 200)), code: 1002,
			message: "len > 125 for control, FIN not set on control"},
		{name: "data before FIN", stream: join(frame(Text, false, x), frame(Binary, true, x)), code: 1002,
			message: "data before FIN"},
		{name: "continuation first", stream: frame(continuation, true, x), code: 1002, message: "continuation after FIN"},
		{name: "continuation after a message", stream: join(frame(Text, true, x), frame(continuation, true, x)),
			want: []msg{{Text, "x"}}, code: 1002, message: "continuation after FIN"},
		{name: "64-bit length with top bit", stream: header(finBit|2, 1<<63), code: 1009, message: "read limit exceeded"},
		{name: "64-bit length with top bit, no limit", limit: -1, stream: header(finBit|2, 1<<64-1), code: 1009,
			message: "read limit exceeded"},
		{name: "over the limit", limit: 10, stream: frame(Binary, true, make([]byte, 11)), code: 1009,
			message: "read limit exceeded"},
		{name: "fragments over the limit", limit: 100,
			stream: join(frame(Text, false, make([]byte, 60)), frame(Ping, true, x), frame(continuation, true, make([]byte, 41))),
			want:   []msg{{Ping, "x"}}, code: 1009, message: "read limit exceeded"},
		{name: "bad close code 999", stream: frame(Close, true, closePayload(999, "")), code: 1002, message: "bad close code 999"},
		{name: "bad close code 1005", stream: frame(Close, true, closePayload(1005, "")), code: 1002, message: "bad close code 1005"},
		{name: "bad close code 1006", stream: frame(Close, true, closePayload(1006, "")), code: 1002, message: "bad close code 1006"},
		{name: "bad close code 1014", stream: frame(Close, true, closePayload(1014, "")), code: 1002, message: "bad close code 1014"},
		{name: "bad close code 1015", stream: frame(Close, true, closePayload(1015, "")), code: 1002, message: "bad close code 1015"},
		{name: "bad close code 2999", stream: frame(Close, true, closePayload(2999, "")), code: 1002, message: "bad close code 2999"},
		{name: "bad close code 5000", stream: frame(Close, true, closePayload(5000, "")), code: 1002, message: "bad close code 5000"},
		{name: "close text not UTF-8", stream: frame(Close, true, closePayload(1000, "ok\xff\xfe")), code: 1002,
			message: "invalid utf8 payload in close frame"},
	}
	for _, op := range []int{3, 4, 5, 6, 7, 11, 12, 13, 14, 15} {
		cases = append(cases, errorCase{name: "opcode " + strconv.Itoa(op), stream: rawFrame(finBit|byte(op), true, false, x),
			code: 1002, message: "bad opcode " + strconv.Itoa(op)})
	}
	return cases
}

func TestProtocolErrors(t *testing.T) {
	cases := append(protocolCases(), errorCase{name: "1-byte close payload", stream: frame(Close, true, []byte{3}),
		code: 1002, message: "close payload of 1 byte"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			limit := tc.limit
			if limit == 0 {
				limit = 1 << 20
			}
			for _, bytewise := range []bool{false, true} {
				r := New(limit)
				var got []msg
				var err error
				if bytewise {
					got, err = feedBytewise(r, tc.stream)
				} else {
					got, err = feedChunks(r, tc.stream)
				}
				var pe *ProtocolError
				if !errors.As(err, &pe) {
					t.Fatalf("bytewise %v: error %v, want a *ProtocolError", bytewise, err)
				}
				if pe.CloseCode != tc.code || pe.Message != tc.message {
					t.Fatalf("bytewise %v: got %d %q, want %d %q", bytewise, pe.CloseCode, pe.Message, tc.code, tc.message)
				}
				checkMsgs(t, "before the error", got, tc.want)
				if again := r.Feed(frame(Text, true, []byte("more")), (&collector{}).handle); again != err {
					t.Fatalf("Feed after the error returned %v, want the same error", again)
				}
			}
		})
	}
}

func TestLimitAtHeader(t *testing.T) {
	r := New(256 << 10)
	stream := join(header(finBit|byte(Binary), 300<<10), make([]byte, 1000))
	got, err := feedChunks(r, stream)
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.CloseCode != 1009 {
		t.Fatalf("got %v, want a 1009", err)
	}
	if len(got) != 0 || r.Buffered() != 0 || cap(r.buf) != 0 {
		t.Fatalf("got %v, Buffered %d, buffer capacity %d: the payload was held", got, r.Buffered(), cap(r.buf))
	}

	// Header arriving a byte at a time: refused as soon as it is whole.
	r = New(256 << 10)
	h := header(finBit|byte(Binary), 300<<10)
	var c collector
	for i := range h {
		err = r.Feed(h[i:i+1], c.handle)
		if i < len(h)-1 && (err != nil || r.Buffered() != i+1) {
			t.Fatalf("byte %d: %v, Buffered %d", i, err, r.Buffered())
		}
	}
	if !errors.As(err, &pe) || pe.CloseCode != 1009 || cap(r.buf) != 0 {
		t.Fatalf("got %v with buffer capacity %d, want a 1009 and no buffer", err, cap(r.buf))
	}

	// Exactly the limit is allowed, and memory follows what arrived, not
	// what was announced.
	r = New(256 << 10)
	if err := r.Feed(join(header(finBit|byte(Binary), 256<<10), make([]byte, 10)), c.handle); err != nil {
		t.Fatal(err)
	}
	if r.Buffered() != 10 || cap(r.buf) > minBuffer {
		t.Fatalf("Buffered %d, buffer capacity %d after 10 bytes of payload", r.Buffered(), cap(r.buf))
	}
}

func TestLimitCountsFragments(t *testing.T) {
	r := New(100)
	stream := join(
		frame(Text, false, make([]byte, 60)),
		frame(Ping, true, make([]byte, 125)), // control frames do not count
		frame(continuation, true, make([]byte, 40)),
		frame(Binary, true, make([]byte, 100)), // the count starts again
	)
	got, err := feedChunks(r, stream)
	if err != nil {
		t.Fatal(err)
	}
	want := []msg{{Ping, string(make([]byte, 125))}, {Text, string(make([]byte, 100))}, {Binary, string(make([]byte, 100))}}
	checkMsgs(t, "at the limit", got, want)

	got, err = feedChunks(r, join(frame(Binary, false, make([]byte, 50)), frame(continuation, false, make([]byte, 50)),
		frame(continuation, true, nil), frame(Text, false, make([]byte, 99)), frame(continuation, true, []byte("ab"))))
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.CloseCode != 1009 {
		t.Fatalf("got %v, want a 1009", err)
	}
	checkMsgs(t, "over the limit", got, []msg{{Binary, string(make([]byte, 100))}})
	if r.Buffered() > 99 {
		t.Fatalf("Buffered %d: the refused fragment's payload was held", r.Buffered())
	}
}

func TestSetLimit(t *testing.T) {
	r := New(10)
	var c collector
	if err := r.Feed(frame(Binary, true, make([]byte, 10)), c.handle); err != nil {
		t.Fatal(err)
	}
	r.SetLimit(20)
	if err := r.Feed(frame(Binary, true, make([]byte, 20)), c.handle); err != nil {
		t.Fatal(err)
	}
	r.SetLimit(5)
	if err := r.Feed(frame(Binary, true, make([]byte, 6)), c.handle); err == nil {
		t.Fatal("6 bytes accepted under a limit of 5")
	}
	if len(c.got) != 2 {
		t.Fatalf("got %v", c.got)
	}
}

func TestClosePayloads(t *testing.T) {
	for _, code := range []int{1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 3000, 4999} {
		p := closePayload(code, "fin ✓")
		got, err := feedChunks(New(10), frame(Close, true, p))
		if err != nil {
			t.Fatalf("code %d: %v", code, err)
		}
		checkMsgs(t, "close "+strconv.Itoa(code), got, []msg{{Close, string(p)}})
	}
	for _, tc := range []struct {
		payload []byte
		message string
	}{
		{[]byte{0x03}, "close payload of 1 byte"},
		{closePayload(999, ""), "bad close code 999"},
		{closePayload(1004, ""), "bad close code 1004"},
		{closePayload(1000, "\xc3\x28"), "invalid utf8 payload in close frame"},
	} {
		got, err := feedChunks(New(10), frame(Close, true, tc.payload))
		var pe *ProtocolError
		if !errors.As(err, &pe) || pe.CloseCode != 1002 || pe.Message != tc.message || len(got) != 0 {
			t.Fatalf("close payload %q: got %v and %v, want 1002 %q", tc.payload, got, err, tc.message)
		}
	}

	// Nothing after a close frame is read, as in gorilla.
	r := New(10)
	got, err := feedChunks(r, join(frame(Close, true, nil), frame(Text, true, []byte("late")), []byte{0xff, 0xff}))
	if err != nil {
		t.Fatal(err)
	}
	checkMsgs(t, "after close", got, []msg{{Close, ""}})
	if got, err := feedChunks(r, frame(Text, true, []byte("later"))); err != nil || len(got) != 0 {
		t.Fatalf("Feed after close: %v, %v", got, err)
	}
}

func TestHandleFalseStops(t *testing.T) {
	stream := join(frame(Text, true, []byte("a")), frame(Text, true, []byte("b")), frame(Text, true, []byte("c")))
	for _, bytewise := range []bool{false, true} {
		r := New(10)
		c := collector{stopAt: 2}
		s := bytes.Clone(stream)
		step := len(s)
		if bytewise {
			step = 1
		}
		for i := 0; i < len(s); i += step {
			if err := r.Feed(s[i:min(i+step, len(s))], c.handle); err != nil {
				t.Fatal(err)
			}
		}
		checkMsgs(t, fmt.Sprintf("bytewise %v", bytewise), c.got, []msg{{Text, "a"}, {Text, "b"}})
		if err := r.Feed(frame(Text, true, []byte("d")), c.handle); err != nil || len(c.got) != 2 {
			t.Fatalf("Feed after a stop: %v, %v", c.got, err)
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	single := frame(Binary, true, pattern(200, 3))
	batch := join(frame(Text, true, []byte("hi")), frame(Ping, true, []byte("p")), frame(Binary, true, pattern(1000, 4)),
		frame(Pong, true, nil), frame(Binary, false, []byte("a")), frame(continuation, true, []byte("b")))
	r := New(1 << 20)
	n := 0
	handle := func(Kind, []byte) bool { n++; return true }
	buf := make([]byte, len(batch))
	for _, tc := range []struct {
		name   string
		stream []byte
		cut    int
	}{
		{"one small frame", single, len(single)},
		{"several frames", batch, len(batch)},
		// Once warm, a straddling frame reuses the kept buffer.
		{"straddling frame", single, 101},
		{"straddling header", single, 1},
	} {
		allocs := testing.AllocsPerRun(1000, func() {
			copy(buf, tc.stream)
			s := buf[:len(tc.stream)]
			if err := r.Feed(s[:tc.cut], handle); err != nil {
				t.Fatal(err)
			}
			if err := r.Feed(s[tc.cut:], handle); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Feed", tc.name, allocs)
		}
	}
	if n == 0 {
		t.Fatal("nothing handed over")
	}
}

// TestWholeFramesNotCopied checks that frames lying whole in a chunk are
// handed over as slices of it, unmasked in place.
func TestWholeFramesNotCopied(t *testing.T) {
	chunk := join(frame(Binary, true, pattern(200, 9)), frame(Ping, true, []byte("ping")), frame(Text, true, []byte("t")))
	r := New(1 << 20)
	n := 0
	err := r.Feed(chunk, func(kind Kind, p []byte) bool {
		n++
		if !sameBacking(chunk, p) {
			t.Errorf("kind %d: payload copied out of the chunk", kind)
		}
		return true
	})
	if err != nil || n != 3 {
		t.Fatalf("%d frames, %v", n, err)
	}
	if r.buf != nil {
		t.Fatalf("buffer of capacity %d allocated for whole frames", cap(r.buf))
	}
}

func sameBacking(chunk, p []byte) bool {
	for i := range chunk {
		if &chunk[i] == &p[0] {
			return true
		}
	}
	return false
}

func TestLargeMessageAcrossChunks(t *testing.T) {
	big := pattern(300<<10, 5)
	third := len(big) / 3
	for _, tc := range []struct {
		name   string
		stream []byte
	}{
		{"one frame", frame(Binary, true, big)},
		{"three fragments and a ping", join(frame(Binary, false, big[:third]), frame(Ping, true, []byte("p")),
			frame(continuation, false, big[third:2*third]), frame(continuation, true, big[2*third:]))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := join(tc.stream, frame(Text, true, []byte("after")))
			var cuts []int
			for i := 16 << 10; i < len(stream); i += 16 << 10 {
				cuts = append(cuts, i)
			}
			r := New(1 << 20)
			got, err := feedChunks(r, stream, cuts...)
			if err != nil {
				t.Fatal(err)
			}
			var data []msg
			for _, m := range got {
				if m.Kind != Ping {
					data = append(data, m)
				}
			}
			checkMsgs(t, "messages", data, []msg{{Binary, string(big)}, {Text, "after"}})
			if r.Buffered() != 0 || r.buf != nil {
				t.Fatalf("Buffered %d, buffer capacity %d: the big buffer was kept", r.Buffered(), cap(r.buf))
			}
		})
	}

	// A smaller straddling message keeps its buffer for the next one.
	r := New(1 << 20)
	if _, err := feedChunks(r, frame(Binary, true, pattern(10<<10, 6)), 5000); err != nil {
		t.Fatal(err)
	}
	if cap(r.buf) == 0 || r.Buffered() != 0 {
		t.Fatalf("buffer capacity %d, Buffered %d", cap(r.buf), r.Buffered())
	}
}

func TestUnmask(t *testing.T) {
	backing := pattern(200, 7)
	for start := 0; start < 8; start++ {
		for n := 0; n <= 100; n++ {
			for pos := 0; pos < 4; pos++ {
				b := bytes.Clone(backing)[start : start+n]
				want := bytes.Clone(b)
				for i := range want {
					want[i] ^= testKey[(pos+i)&3]
				}
				unmask(testKey, pos, b)
				if !bytes.Equal(b, want) {
					t.Fatalf("start %d length %d pos %d: wrong result", start, n, pos)
				}
			}
		}
	}
}

// countFragments walks a stream of masked frames independently of the
// reader and counts those without FIN, to show a test really fragmented.
func countFragments(stream []byte) int {
	n := 0
	for len(stream) >= 2 {
		length, size := uint64(stream[1]&0x7f), 2
		switch length {
		case 126:
			length, size = uint64(binary.BigEndian.Uint16(stream[2:])), 4
		case 127:
			length, size = binary.BigEndian.Uint64(stream[2:]), 10
		}
		if stream[0]&finBit == 0 {
			n++
		}
		stream = stream[size+4+int(length):]
	}
	return n
}

// acceptWebSocket answers a client's opening handshake by hand, so that
// the bytes after it are left to the reader under test.
func acceptWebSocket(conn net.Conn) (*bufio.Reader, error) {
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, err
	}
	sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	_, err = fmt.Fprintf(conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Accept: %s\r\n\r\n", base64.StdEncoding.EncodeToString(sum[:]))
	return br, err
}

// TestGorillaClientFrames parses what a gorilla client really sends. Its
// 1 KiB write buffer makes it fragment every message larger than that.
func TestGorillaClientFrames(t *testing.T) {
	clientEnd, serverEnd := net.Pipe()
	defer clientEnd.Close()
	defer serverEnd.Close()

	type result struct {
		got []msg
		raw []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			serverEnd.Close() // unblocks the client's writes if this ends early
			done <- res
		}()
		br, err := acceptWebSocket(serverEnd)
		if err != nil {
			res.err = err
			return
		}
		r := New(1 << 20)
		var c collector
		buf := make([]byte, 20000)
		sizes := []int{1, 7, 100, 4096, 20000, 3, 1500}
		for i := 0; len(c.got) == 0 || c.got[len(c.got)-1].Kind != Close; i++ {
			n, err := br.Read(buf[:sizes[i%len(sizes)]])
			if err != nil {
				res.err = err
				return
			}
			res.raw = append(res.raw, buf[:n]...)
			if res.err = r.Feed(buf[:n], c.handle); res.err != nil {
				return
			}
			res.got = c.got
		}
	}()

	u, _ := url.Parse("ws://wsread.test/")
	conn, _, err := websocket.NewClient(clientEnd, u, nil, 1024, 1024)
	if err != nil {
		t.Fatal(err)
	}
	var want []msg
	for _, size := range []int{0, 125, 126, 65535, 65536, 200000} {
		text := bytes.Repeat([]byte("abcdefghij"), size/10+1)[:size]
		bin := pattern(size, int64(size))
		for _, m := range []struct {
			kind Kind
			data []byte
		}{{Text, text}, {Binary, bin}} {
			if err := conn.WriteMessage(int(m.kind), m.data); err != nil {
				t.Fatal(err)
			}
			want = append(want, msg{m.kind, string(m.data)})
		}
	}
	w, err := conn.NextWriter(websocket.BinaryMessage)
	if err != nil {
		t.Fatal(err)
	}
	var pieces []byte
	for _, n := range []int{3000, 5, 7000, 1} {
		p := pattern(n, int64(n)+100)
		pieces = append(pieces, p...)
		if _, err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want = append(want, msg{Binary, string(pieces)})
	deadline := time.Now().Add(5 * time.Second)
	for _, c := range []struct {
		kind Kind
		data []byte
	}{{Ping, []byte("ping")}, {Pong, nil}, {Close, websocket.FormatCloseMessage(1000, "done")}} {
		if err := conn.WriteControl(int(c.kind), c.data, deadline); err != nil {
			t.Fatal(err)
		}
		want = append(want, msg{c.kind, string(c.data)})
	}

	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	checkMsgs(t, "gorilla client", res.got, want)
	if countFragments(res.raw) < 100 {
		t.Fatalf("only %d fragments: the test did not exercise joining", countFragments(res.raw))
	}
}

// gorillaServer runs gorilla's own server-side reader over the same raw
// bytes, recording what its handlers and ReadMessage saw.
type gorillaOutcome struct {
	got []msg
	err string // "" when it ended with a close frame
}

func newGorillaServer(t *testing.T) (*httptest.Server, chan gorillaOutcome) {
	outcomes := make(chan gorillaOutcome, 1)
	upgrader := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		conn, err := upgrader.Upgrade(w, req, nil)
		if err != nil {
			outcomes <- gorillaOutcome{err: "upgrade: " + err.Error()}
			return
		}
		defer conn.Close()
		limit, _ := strconv.Atoi(req.URL.Query().Get("limit"))
		conn.SetReadLimit(int64(limit))
		var out gorillaOutcome
		record := func(kind Kind) func(string) error {
			return func(data string) error { out.got = append(out.got, msg{kind, data}); return nil }
		}
		conn.SetPingHandler(record(Ping))
		conn.SetPongHandler(record(Pong))
		conn.SetCloseHandler(func(code int, text string) error {
			out.got = append(out.got, msg{Close, string(websocket.FormatCloseMessage(code, text))})
			return nil
		})
		for {
			kind, data, err := conn.ReadMessage()
			if err != nil {
				var ce *websocket.CloseError
				if !errors.As(err, &ce) {
					out.err = err.Error()
				}
				outcomes <- out
				return
			}
			out.got = append(out.got, msg{Kind(kind), string(data)})
		}
	}))
	t.Cleanup(srv.Close)
	return srv, outcomes
}

func runGorilla(t *testing.T, srv *httptest.Server, outcomes chan gorillaOutcome, limit int, stream []byte) gorillaOutcome {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /?limit=%d HTTP/1.1\r\nHost: wsread.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", limit)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v %v", resp, err)
	}
	go func() {
		conn.Write(stream)
		io.Copy(io.Discard, conn) // whatever gorilla answers
	}()
	select {
	case out := <-outcomes:
		return out
	case <-time.After(10 * time.Second):
		t.Fatal("gorilla did not finish the stream")
		return gorillaOutcome{}
	}
}

// TestGorillaServerAgrees feeds the same streams to gorilla's server-side
// reader and to this one: the same messages in the same order, and the same
// error text (gorilla has no close codes in its errors; those are checked in
// TestProtocolErrors).
func TestGorillaServerAgrees(t *testing.T) {
	srv, outcomes := newGorillaServer(t)
	mixed, _ := mixedStream()
	type streamCase struct {
		name   string
		limit  int
		stream []byte
	}
	cases := []streamCase{
		{"mixed", 1 << 20, mixed},
		{"empty close", 10, frame(Close, true, nil)},
		{"text not UTF-8", 10, join(frame(Text, true, []byte{0xff, 0xfe}), frame(Close, true, nil))},
		{"fragments at the limit", 100, join(frame(Text, false, make([]byte, 60)), frame(Ping, true, nil),
			frame(continuation, true, make([]byte, 40)), frame(Close, true, closePayload(1001, "")))},
	}
	for _, tc := range protocolCases() {
		limit := tc.limit
		if limit == 0 {
			limit = 1 << 20
		}
		if limit < 0 {
			limit = 0
		}
		cases = append(cases, streamCase{tc.name, limit, tc.stream})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			theirs := runGorilla(t, srv, outcomes, tc.limit, tc.stream)
			got, err := feedChunks(New(tc.limit), tc.stream)
			ours := gorillaOutcome{got: got}
			if err != nil {
				ours.err = err.Error()
			}
			if !reflect.DeepEqual(ours, theirs) {
				t.Fatalf("ours %v %q, gorilla %v %q", ours.got, ours.err, theirs.got, theirs.err)
			}
		})
	}
}

func benchmarkFeed(b *testing.B, chunk []byte) {
	r := New(1 << 20)
	handle := func(Kind, []byte) bool { return true }
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		// Feeding the same bytes again unmasks them back: still valid frames.
		if err := r.Feed(chunk, handle); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFeedSmallFrames(b *testing.B) {
	benchmarkFeed(b, frame(Binary, true, pattern(200, 8)))
}

func BenchmarkFeedSmallFramesBatched(b *testing.B) {
	benchmarkFeed(b, bytes.Repeat(frame(Binary, true, pattern(200, 8)), 64))
}
