package rdpwire

import (
	"bytes"
	"testing"
)

func mustPdu(t *testing.T, size int) []byte {
	t.Helper()
	pdu, err := BuildTpktPdu(size)
	if err != nil {
		t.Fatal(err)
	}
	return pdu
}

func TestCounterCountsPdusSplitAnywhere(t *testing.T) {
	// TPKT, a short fast-path PDU (one length byte), a long one (two)
	fastShort := append([]byte{0x00, 5}, 1, 2, 3)
	fastLong := append([]byte{0x04, 0x81, 0x10}, bytes.Repeat([]byte{9}, 0x110-3)...)
	stream := bytes.Join([][]byte{mustPdu(t, 90), fastShort, fastLong, mustPdu(t, 7)}, nil)
	for cut := 1; cut <= len(stream); cut++ {
		var counter Counter
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

func TestCounterRefusesBytesThatStartNoPdu(t *testing.T) {
	var counter Counter
	if _, err := counter.Push([]byte{0x01, 0x02}); err == nil {
		t.Fatal("0x01 starts no pdu but was accepted")
	}
	counter = Counter{}
	if _, err := counter.Push([]byte{0x03, 0x00, 0x00, 0x02}); err == nil {
		t.Fatal("a tpkt length under its header was accepted")
	}
}

func TestFirstPduReaderKeepsWhatFollowsAndCapsTheSize(t *testing.T) {
	first, next := mustPdu(t, 19), mustPdu(t, 90)
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
	if _, _, _, err := capped.Push(mustPdu(t, 2000)[:1100]); err == nil {
		t.Fatal("a first pdu over the cap was accepted")
	}
}

func TestBuildTpktPduAndSizedRequests(t *testing.T) {
	pdu := mustPdu(t, 90)
	if !bytes.Equal(pdu[:7], []byte{0x03, 0x00, 0x00, 90, 0x02, 0xf0, 0x80}) || pdu[89] != 0x5a {
		t.Fatalf("header %x", pdu[:7])
	}
	if _, err := BuildTpktPdu(6); err == nil {
		t.Fatal("a 6-byte pdu was built")
	}
	if RequestedReplyBytes(pdu) != 0x5a5a {
		t.Fatal("a request's size field is read from bytes 7 and 8")
	}
	pdu[7], pdu[8] = 0x06, 0x85
	if RequestedReplyBytes(pdu) != 1669 {
		t.Fatalf("size %d", RequestedReplyBytes(pdu))
	}
	if RequestedReplyBytes(mustPdu(t, 8)) != 0 {
		t.Fatal("a request too short to name a size asks for an echo")
	}
}
