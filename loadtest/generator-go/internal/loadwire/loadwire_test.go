package loadwire

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"lanterna/dataplane/pdu"
)

// Bytes from @lanterna/protocol's buildConnectionConfirm.
const confirmSSLFromTheProtocol = "030000130ed000001234000200080001000000"

func mustPdu(t *testing.T, size int) []byte {
	t.Helper()
	b, err := BuildTpktPdu(size)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestConfirmSSLMatchesTheProtocolPackageAndPassesTheCheck(t *testing.T) {
	if hex.EncodeToString(ConfirmSSL()) != confirmSSLFromTheProtocol {
		t.Fatalf("confirm %x", ConfirmSSL())
	}
	if err := ExpectTLSConfirm(ConfirmSSL(), "echo host"); err != nil {
		t.Fatal(err)
	}
	hybrid := pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmSuccess, SelectedProtocol: pdu.ProtocolHybrid})
	if err := ExpectTLSConfirm(hybrid, "echo host"); err == nil || !strings.Contains(err.Error(), "selected protocol 2") {
		t.Fatalf("hybrid accepted: %v", err)
	}
	failure := pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmFailure, FailureCode: 5})
	if err := ExpectTLSConfirm(failure, "server"); err == nil || !strings.Contains(err.Error(), "refused the negotiation with code 5") {
		t.Fatalf("a negotiation failure: %v", err)
	}
	if err := ExpectTLSConfirm(mustPdu(t, 19), "gateway"); err == nil || !strings.Contains(err.Error(), "gateway sent no connection confirm") {
		t.Fatalf("a data pdu taken for a confirm: %v", err)
	}
}

func TestBuildTpktPduAndSizedRequests(t *testing.T) {
	b := mustPdu(t, 90)
	if !bytes.Equal(b[:7], []byte{0x03, 0x00, 0x00, 90, 0x02, 0xf0, 0x80}) || b[89] != 0x5a {
		t.Fatalf("header %x", b[:7])
	}
	if _, err := BuildTpktPdu(6); err == nil {
		t.Fatal("a 6-byte pdu was built")
	}
	if RequestedReplyBytes(b) != 0x5a5a {
		t.Fatal("a request's size field is read from bytes 7 and 8")
	}
	b[7], b[8] = 0x06, 0x85
	if RequestedReplyBytes(b) != 1669 {
		t.Fatalf("size %d", RequestedReplyBytes(b))
	}
	if RequestedReplyBytes(mustPdu(t, 8)) != 0 {
		t.Fatal("a request too short to name a size asks for an echo")
	}
}

func TestTheLoadTestsPdusAreWholePdusToTheDataPlanesRules(t *testing.T) {
	var counter pdu.StreamCounter
	n, err := counter.Push(append(mustPdu(t, 90), mustPdu(t, MaxPduBytes)...))
	if err != nil || n != 2 || !counter.AtBoundary() {
		t.Fatalf("%d pdus, %v", n, err)
	}
}
