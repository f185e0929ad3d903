package pdu

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"testing"
)

func tpkt(payload ...byte) []byte {
	length := 4 + len(payload)
	return append([]byte{0x03, 0x00, byte(length >> 8), byte(length)}, payload...)
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

type batch struct {
	data []byte
	pdus int
}

// pushAll feeds chunks to f; returns the batches (copied) or the first error.
func pushAll(t *testing.T, f *Framer, chunks [][]byte) ([]batch, error) {
	t.Helper()
	var batches []batch
	for _, chunk := range chunks {
		err := f.Push(chunk, func(data []byte, pdus int) {
			batches = append(batches, batch{append([]byte(nil), data...), pdus})
		})
		if err != nil {
			return batches, err
		}
	}
	return batches, nil
}

func chunked(stream []byte, size int) [][]byte {
	var chunks [][]byte
	for at := 0; at < len(stream); at += size {
		chunks = append(chunks, stream[at:min(at+size, len(stream))])
	}
	return chunks
}

func TestNlaThenRdpInAnyChunks(t *testing.T) {
	shortTs := []byte{0x30, 0x03, 0x02, 0x01, 0x06}
	longTs := concat([]byte{0x30, 0x82, 0x01, 0x00}, bytes.Repeat([]byte{0xa5}, 0x100))
	longTs1 := concat([]byte{0x30, 0x81, 0x90}, bytes.Repeat([]byte{0x11}, 0x90))
	earlyAuth := []byte{0, 0, 0, 0}
	connectResponse := tpkt(0x02, 0xf0, 0x80, 0x7f, 0x66)
	// After NLA 0x30 is a fast-path header, not DER.
	fastPath := []byte{0x30, 0x05, 0x01, 0x02, 0x03}
	stream := [][]byte{shortTs, longTs, longTs1, earlyAuth, connectResponse, fastPath}
	joined := concat(stream...)
	for _, size := range []int{1, 2, 3, 5, len(joined)} {
		f := NewFramer(ModeNLAEx, 0)
		batches, err := pushAll(t, f, chunked(joined, size))
		if err != nil {
			t.Fatalf("chunks of %d: %v", size, err)
		}
		var got []byte
		pdus := 0
		mode := ModeNLAEx
		for _, b := range batches {
			got = append(got, b.data...)
			pdus += b.pdus
			count, next, err := CountWhole(b.data, mode, 0)
			if err != nil || count != b.pdus {
				t.Fatalf("chunks of %d: a batch is not %d whole pdus: %d, %v", size, b.pdus, count, err)
			}
			mode = next
		}
		if !bytes.Equal(got, joined) || pdus != len(stream) {
			t.Fatalf("chunks of %d: %d pdus, %d bytes", size, pdus, len(got))
		}
		if f.Mode() != ModeRDP || f.BufferedBytes() != 0 {
			t.Fatalf("chunks of %d: mode %s, %d buffered", size, f.Mode(), f.BufferedBytes())
		}
	}
	// The client direction never sees an authorization result.
	if err := NewFramer(ModeNLA, 0).Push(earlyAuth, func([]byte, int) {}); codeOf(err) != CodePduInvalid {
		t.Fatalf("an authorization result in nla: %v", err)
	}
}

func codeOf(err error) string {
	var framing *FramingError
	if errors.As(err, &framing) {
		return framing.Code
	}
	return fmt.Sprint(err)
}

func TestMalformedHeaders(t *testing.T) {
	cases := []struct {
		bytes   []byte
		mode    Mode
		code    string
		message string
	}{
		{[]byte{0x03, 0x01, 0x00, 0x10}, ModeRDP, CodePduInvalid, "tpkt reserved byte is 0x01, not 0x00,"},
		{[]byte{0x03, 0x00, 0x00, 0x06}, ModeRDP, CodePduInvalid, "tpkt length 6 is below 7"},
		{[]byte{0x03, 0x00, 0x00, 0x00}, ModeRDP, CodePduInvalid, "tpkt length 0 is below 7"},
		{[]byte{0x00, 0x00}, ModeRDP, CodePduInvalid, "fast-path length 0 is shorter than its header"},
		{[]byte{0x04, 0x01}, ModeRDP, CodePduInvalid, "fast-path length 1 is shorter than its header"},
		{[]byte{0x04, 0x80, 0x02}, ModeRDP, CodePduInvalid, "fast-path length 2 is shorter than its header"},
		{[]byte{0x01}, ModeRDP, CodePduInvalid, "unknown pdu header byte 0x01"},
		{[]byte{0x07}, ModeRDP, CodePduInvalid, "unknown pdu header byte 0x07"},
		{[]byte{0x04}, ModeNLA, CodePduInvalid, "unknown pdu header byte 0x04 during nla"},
		{[]byte{0x30, 0x80}, ModeNLA, CodePduInvalid, "ts-request with indefinite length"},
		{[]byte{0x30, 0x85}, ModeNLA, CodePduInvalid, "ts-request length of 5 bytes"},
		{[]byte{0x30, 0x00}, ModeNLA, CodePduInvalid, "empty ts-request"},
		{[]byte{0x05, 0x00, 0x01, 0x00}, ModeNLAEx, CodePduInvalid, "early user authorization result byte 2 is 0x01, not 0x00,"},
		{[]byte{0x30, 0x83, 0x01, 0x00, 0x00}, ModeNLA, CodePduTooLarge, "ts-request pdu of 65541 bytes exceeds the 65536-byte limit"},
		{[]byte{0x30, 0x84, 0xff, 0xff, 0xff, 0xff}, ModeNLA, CodePduTooLarge, "ts-request pdu of 4294967301 bytes exceeds the 65536-byte limit"},
	}
	prefix := tpkt(0x02, 0xf0, 0x80, 0x00)
	for _, c := range cases {
		stream := c.bytes
		offset := 0
		if c.mode == ModeRDP {
			stream, offset = concat(prefix, c.bytes), len(prefix)
		}
		want := fmt.Sprintf("%s at offset %d", c.message, offset)
		check := func(how string, err error) {
			t.Helper()
			var framing *FramingError
			if !errors.As(err, &framing) || framing.Code != c.code || framing.Message != want || framing.Offset != int64(offset) {
				t.Errorf("% x in %s, %s: got %#v, want %s %q", c.bytes, c.mode, how, err, c.code, want)
			}
		}
		f := NewFramer(c.mode, 0)
		_, err := pushAll(t, f, [][]byte{stream})
		check("one chunk", err)
		f = NewFramer(c.mode, 0)
		_, err = pushAll(t, f, chunked(stream, 1))
		check("byte by byte", err)
		check("after failing", f.Push(prefix, func([]byte, int) { t.Error("a failed framer emitted") }))
		_, _, err = CountWhole(stream, c.mode, 0)
		check("CountWhole", err)
	}
}

func TestPduTooLargeAgainstASmallLimit(t *testing.T) {
	f, err := NewFramerLimits(ModeRDP, 1000, 4000)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Push([]byte{0x03, 0x00, 0x03, 0xe9}, func([]byte, int) {})
	if err == nil || err.Error() != "tpkt pdu of 1001 bytes exceeds the 1000-byte limit at offset 0" || codeOf(err) != CodePduTooLarge {
		t.Fatalf("got %v", err)
	}
	f, _ = NewFramerLimits(ModeRDP, 1000, 0)
	batches, err := pushAll(t, f, [][]byte{concat([]byte{0x03, 0x00, 0x03, 0xe8}, make([]byte, 996))})
	if err != nil || len(batches) != 1 || batches[0].pdus != 1 {
		t.Fatalf("a pdu at the limit: %v %v", batches, err)
	}
}

func TestLimitsAreValidated(t *testing.T) {
	for _, limits := range [][2]int{{70000, 65536}, {6, 0}, {0, 64 * 1024 * 1024}, {0, 1000}} {
		if _, err := NewFramerLimits(ModeRDP, limits[0], limits[1]); err == nil {
			t.Errorf("limits %v accepted", limits)
		}
	}
	if _, err := NewFramerLimits(Mode(7), 0, 0); err == nil {
		t.Error("an unknown mode accepted")
	}
	f, err := NewFramerLimits(ModeRDP, 1000, 1000)
	if err != nil || f.MaxFrameBytes() != 1000 {
		t.Fatalf("%v %v", f, err)
	}
}

func TestFramesNeverExceedTheCapNorSplitAPdu(t *testing.T) {
	var pdus [][]byte
	for i := 0; i < 400; i++ {
		pdus = append(pdus, tpkt(bytes.Repeat([]byte{0x5a}, 3+(i*7919)%900)...))
	}
	stream := concat(pdus...)
	f, _ := NewFramerLimits(ModeRDP, 1024, 4096)
	batches, err := pushAll(t, f, [][]byte{stream})
	if err != nil || len(batches) < 2 {
		t.Fatalf("%d batches, %v", len(batches), err)
	}
	seen := 0
	for i, b := range batches {
		if len(b.data) > 4096 {
			t.Fatalf("batch of %d bytes", len(b.data))
		}
		if !bytes.Equal(b.data, concat(pdus[seen:seen+b.pdus]...)) {
			t.Fatalf("batch %d is not pdus %d..%d", i, seen, seen+b.pdus)
		}
		seen += b.pdus
		// A batch is only cut when the next PDU would not fit.
		if i+1 < len(batches) && len(b.data)+len(pdus[seen]) <= 4096 {
			t.Fatalf("batch %d cut with room for the next pdu", i)
		}
	}
	if seen != len(pdus) {
		t.Fatalf("%d of %d pdus", seen, len(pdus))
	}
}

func TestStraddlingPduIsCopiedOnceAndCounted(t *testing.T) {
	pdu := tpkt(0x02, 0xf0, 0x80, 0x00)
	f := NewFramer(ModeRDP, 0)
	batches, _ := pushAll(t, f, [][]byte{concat(pdu, pdu[:3])})
	if len(batches) != 1 || f.Stats() != (Stats{Pdus: 1, Bytes: 8, Batches: 1}) || f.BufferedBytes() != 3 {
		t.Fatalf("%v %+v %d", batches, f.Stats(), f.BufferedBytes())
	}
	batches, _ = pushAll(t, f, [][]byte{concat(pdu[3:], pdu, pdu)})
	// The copied PDU is a batch of its own; the two whole ones after it one more.
	if len(batches) != 2 || batches[0].pdus != 1 || batches[1].pdus != 2 || !bytes.Equal(batches[0].data, pdu) {
		t.Fatalf("%v", batches)
	}
	if f.Stats() != (Stats{Pdus: 4, Bytes: 32, Batches: 3, Copies: 1, CopiedBytes: 8}) || f.Offset() != 32 || f.BufferedBytes() != 0 {
		t.Fatalf("%+v offset %d", f.Stats(), f.Offset())
	}
}

func TestTheModeCanChangeWhileAHeaderStraddles(t *testing.T) {
	// 0x30 0x05 waits for its second byte in nla (a DER header) and is read as fast-path once the kiosk's TPKT ends NLA.
	f := NewFramer(ModeNLA, 0)
	if _, err := pushAll(t, f, [][]byte{{0x30}}); err != nil {
		t.Fatal(err)
	}
	f.SetMode(ModeRDP)
	batches, err := pushAll(t, f, [][]byte{{0x05, 1, 2, 3}})
	if err != nil || len(batches) != 1 || len(batches[0].data) != 5 {
		t.Fatalf("%v %v", batches, err)
	}
}

func TestCountWhole(t *testing.T) {
	tsRequest := []byte{0x30, 0x03, 0x02, 0x01, 0x06}
	connectInitial := tpkt(0x02, 0xf0, 0x80, 0x7f, 0x65)
	fastPath := []byte{0x30, 0x05, 0x01, 0x02, 0x03}
	cases := []struct {
		frame []byte
		mode  Mode
		count int
		next  Mode
	}{
		{concat(tsRequest, tsRequest), ModeNLA, 2, ModeNLA},
		{concat(tsRequest, connectInitial, fastPath), ModeNLA, 3, ModeRDP},
		{concat(fastPath, fastPath), ModeRDP, 2, ModeRDP},
		{nil, ModeRDP, 0, ModeRDP},
	}
	for _, c := range cases {
		count, next, err := CountWhole(c.frame, c.mode, 0)
		if err != nil || count != c.count || next != c.next {
			t.Errorf("% x: %d %s %v", c.frame, count, next, err)
		}
	}
	frame := concat(tpkt(0x02, 0xf0, 0x80, 0x01, 0x02), []byte{0x04, 0x80, 0x05, 0x01, 0x02})
	for _, c := range []struct {
		frame   []byte
		message string
	}{
		{frame[:len(frame)-1], "frame of 13 bytes ends inside a 5-byte fast-path pdu that starts at offset 9"},
		{frame[:10], "frame of 10 bytes ends inside a pdu header that starts at offset 9"},
		{connectInitial[:6], "frame of 6 bytes ends inside a 9-byte tpkt pdu that starts at offset 0"},
		{[]byte{0x01}, "unknown pdu header byte 0x01 at offset 0"},
	} {
		if _, next, err := CountWhole(c.frame, ModeRDP, 0); err == nil || err.Error() != c.message || codeOf(err) != CodePduInvalid || next != ModeRDP {
			t.Errorf("% x: %v, want %q", c.frame, err, c.message)
		}
	}
}

func TestWholePdusCostNoAllocation(t *testing.T) {
	stream := concat(tpkt(make([]byte, 100)...), []byte{0x00, 0x83, 0x00}, make([]byte, 0x300-3), tpkt(1, 2, 3))
	f := NewFramer(ModeRDP, 0)
	emitted := 0
	emit := func(_ []byte, pdus int) { emitted += pdus }
	allocs := testing.AllocsPerRun(200, func() {
		if err := f.Push(stream, emit); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 || emitted == 0 {
		t.Fatalf("Push of whole pdus: %v allocations", allocs)
	}
	allocs = testing.AllocsPerRun(200, func() {
		if _, _, err := CountWhole(stream, ModeRDP, 0); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("CountWhole: %v allocations", allocs)
	}
}

// A stream of well-formed PDUs, cut anywhere, comes out as the same bytes in
// batches of whole PDUs, in the same order, as in one chunk.
func TestRandomCutsKeepTheStream(t *testing.T) {
	random := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		var parts [][]byte
		for i := random.IntN(20); i >= 0; i-- {
			if random.IntN(3) == 0 {
				parts = append(parts, tpkt(make([]byte, 3+random.IntN(3000))...))
			} else {
				length := 3 + random.IntN(0x7fff-3)
				parts = append(parts, concat([]byte{byte(random.IntN(64) << 2), 0x80 | byte(length>>8), byte(length)}, make([]byte, length-3)))
			}
		}
		stream := concat(parts...)
		var chunks [][]byte
		for at := 0; at < len(stream); {
			end := min(len(stream), at+random.IntN(20000))
			chunks = append(chunks, stream[at:end])
			at = end
		}
		f := NewFramer(ModeRDP, 64*1024)
		batches, err := pushAll(t, f, chunks)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		pdus := 0
		for _, b := range batches {
			if len(b.data) > 64*1024 {
				t.Fatalf("batch of %d", len(b.data))
			}
			got = append(got, b.data...)
			pdus += b.pdus
		}
		if !bytes.Equal(got, stream) || pdus != len(parts) || f.Stats().Pdus != uint64(pdus) {
			t.Fatalf("round %d: %d of %d pdus", round, pdus, len(parts))
		}
		f.Release()
	}
}

func TestModeNames(t *testing.T) {
	for _, c := range []struct {
		protocol string
		toClient bool
		want     string
	}{{"ssl", true, "rdp"}, {"ssl", false, "rdp"}, {"hybrid", true, "nla"}, {"hybrid-ex", true, "nla-ex"}, {"hybrid-ex", false, "nla"}} {
		if got := ModeFor(c.protocol, c.toClient).String(); got != c.want {
			t.Errorf("%s %v: %s", c.protocol, c.toClient, got)
		}
		if mode, ok := ParseMode(c.want); !ok || mode.String() != c.want {
			t.Errorf("ParseMode(%s)", c.want)
		}
	}
	if !regexp.MustCompile(`^0x0[0-9a-f]$`).MatchString(hexByte(7)) {
		t.Error(hexByte(7))
	}
}
