package main

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/lanterna/loadtest-generator/internal/loadwire"
)

func tpkt(t testing.TB, size int) []byte {
	t.Helper()
	pdu, err := loadwire.BuildTpktPdu(size)
	if err != nil {
		t.Fatal(err)
	}
	return pdu
}

// sizedRequest: a request of requestBytes naming a reply of replyBytes (loadtest/src/sizedRequest.ts).
func sizedRequest(t testing.TB, requestBytes, replyBytes int) []byte {
	pdu := tpkt(t, requestBytes)
	binary.BigEndian.PutUint16(pdu[7:], uint16(replyBytes))
	return pdu
}

// answerInCuts feeds stream to r in pieces of `cut` bytes and joins the answers.
func answerInCuts(t *testing.T, r responder, stream []byte, cut int) []byte {
	t.Helper()
	var all []byte
	for i := 0; i < len(stream); i += cut {
		// a fresh copy per read, then scribbled over: answers must not alias a read buffer after the call
		chunk := append([]byte(nil), stream[i:min(i+cut, len(stream))]...)
		out, err := r.answer(chunk)
		if err != nil {
			t.Fatalf("cut %d at %d: %v", cut, i, err)
		}
		all = append(all, out...)
		for j := range chunk {
			chunk[j] = 0xee
		}
	}
	return all
}

func TestReplyResponderAnswersEachRequestOnceWhereverTheReadsSplit(t *testing.T) {
	reply := tpkt(t, 1669)
	stream := bytes.Repeat(tpkt(t, 25), 3)
	for cut := 1; cut <= len(stream); cut++ {
		got := answerInCuts(t, &replyResponder{reply: reply}, stream, cut)
		if !bytes.Equal(got, bytes.Repeat(reply, 3)) {
			t.Fatalf("cut %d: %d bytes", cut, len(got))
		}
	}
}

func TestSizedResponderAnswersTheSizeEachRequestNamesAndEchoesWhenItNamesNone(t *testing.T) {
	echoed := sizedRequest(t, 90, 0)
	short := tpkt(t, 8) // too short to name a size: echoed
	stream := bytes.Join([][]byte{sizedRequest(t, 25, 1669), echoed, sizedRequest(t, 200, 8000), short, echoed}, nil)
	want := bytes.Join([][]byte{tpkt(t, 1669), echoed, tpkt(t, 8000), short, echoed}, nil)
	for cut := 1; cut <= len(stream); cut++ {
		if got := answerInCuts(t, &sizedResponder{}, stream, cut); !bytes.Equal(got, want) {
			t.Fatalf("cut %d: %d bytes, want %d", cut, len(got), len(want))
		}
	}
}

func TestSizedResponderRefusesWhatIsNoPduAndSizesNoPduCanHave(t *testing.T) {
	if _, err := (&sizedResponder{}).answer([]byte{0x01, 0x02, 0x03}); err == nil {
		t.Fatal("bytes that start no pdu were answered")
	}
	if _, err := (&sizedResponder{}).answer(sizedRequest(t, 9, 3)); err == nil {
		t.Fatal("a 3-byte reply was built")
	}
}

func TestAWholeRequestIsAnsweredWithoutAllocating(t *testing.T) {
	request := tpkt(t, 90)
	cases := map[string]responder{
		"echo":  echoResponder{},
		"reply": &replyResponder{reply: tpkt(t, 1669)},
		"sized": &sizedResponder{},
	}
	sized := sizedRequest(t, 25, 1669)
	for name, r := range cases {
		in := request
		if name == "sized" {
			in = sized
			_, _ = r.answer(in) // builds the shared 1669-byte reply once
		}
		if allocs := testing.AllocsPerRun(100, func() { _, _ = r.answer(in) }); allocs != 0 {
			t.Errorf("%s: %.1f allocations per request", name, allocs)
		}
	}
}
