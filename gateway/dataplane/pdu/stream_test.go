package pdu

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func dataTpkt(size int) []byte {
	b := bytes.Repeat([]byte{0x5a}, size)
	b[0], b[1] = 0x03, 0x00
	binary.BigEndian.PutUint16(b[2:], uint16(size))
	b[4], b[5], b[6] = 0x02, 0xf0, 0x80
	return b
}

func TestStreamCounterCountsPdusSplitAnywhere(t *testing.T) {
	// TPKT, a short fast-path PDU (one length byte), a long one (two)
	fastShort := []byte{0x00, 5, 1, 2, 3}
	fastLong := append([]byte{0x04, 0x81, 0x10}, bytes.Repeat([]byte{9}, 0x110-3)...)
	stream := bytes.Join([][]byte{dataTpkt(90), fastShort, fastLong, dataTpkt(7)}, nil)
	for cut := 1; cut <= len(stream); cut++ {
		var counter StreamCounter
		total := 0
		for i := 0; i < len(stream); i += cut {
			n, err := counter.Push(stream[i:min(i+cut, len(stream))])
			if err != nil {
				t.Fatalf("cut %d: %v", cut, err)
			}
			total += n
		}
		if total != 4 || !counter.AtBoundary() {
			t.Fatalf("cut %d: %d pdus, at boundary %v", cut, total, counter.AtBoundary())
		}
	}
}

func TestStreamCounterRefusesWhatTheFramerRefuses(t *testing.T) {
	var counter StreamCounter
	if _, err := counter.Push([]byte{0x01, 0x02}); err == nil {
		t.Fatal("0x01 starts no pdu but was accepted")
	}
	counter = StreamCounter{}
	if _, err := counter.Push([]byte{0x03, 0x00, 0x00, 0x02}); err == nil {
		t.Fatal("a tpkt length under its header was accepted")
	}
	small := NewStreamCounter(ModeRDP, 64)
	if _, err := small.Push(dataTpkt(90)); err == nil || err.(*FramingError).Code != CodePduTooLarge {
		t.Fatalf("a pdu over the counter's limit: %v", err)
	}
}

func TestFirstPduReaderKeepsWhatFollowsAndCapsTheSize(t *testing.T) {
	first, next := dataTpkt(19), dataTpkt(90)
	reader := FirstPduReader{Max: 1024}
	stream := append(append([]byte{}, first...), next[:10]...)
	if _, _, done, err := reader.Push(stream[:3]); done || err != nil {
		t.Fatalf("done %v, err %v after 3 bytes", done, err)
	}
	pdu, rest, done, err := reader.Push(stream[3:])
	if err != nil || !done || !bytes.Equal(pdu, first) || !bytes.Equal(rest, next[:10]) {
		t.Fatalf("pdu %x rest %x done %v err %v", pdu, rest, done, err)
	}
	capped := FirstPduReader{Max: 1024}
	if _, _, _, err := capped.Push(dataTpkt(2000)[:1100]); err == nil {
		t.Fatal("a first pdu over the cap was accepted")
	}
}
