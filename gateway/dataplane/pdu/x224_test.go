package pdu

import (
	"bytes"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"
	"testing"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic(err)
	}
	return b
}

// MS-RDPBCGR 4.1.1 and 4.1.2: the spec's Connection Request (cookie "eltons") and Confirm.
var (
	specRequest = unhex(`03 00 00 2c 27 e0 00 00 00 00 00
		43 6f 6f 6b 69 65 3a 20 6d 73 74 73 68 61 73 68 3d 65 6c 74 6f 6e 73 0d 0a
		01 00 08 00 00 00 00 00`)
	specConfirm = unhex("03 00 00 13 0e d0 00 00 12 34 00 02 00 08 00 00 00 00 00")
)

func TestSpecExamples(t *testing.T) {
	request, err := ParseConnectionRequestFields(specRequest)
	if err != nil || request.Cookie == nil || *request.Cookie != "eltons" || !request.Negotiation || request.RequestedProtocols != ProtocolRDP {
		t.Fatalf("%+v %v", request, err)
	}
	if !bytes.Equal(BuildConnectionRequest(ProtocolRDP, "eltons"), specRequest) {
		t.Fatal("the spec request does not rebuild")
	}
	confirm, err := ParseConnectionConfirm(specConfirm)
	if err != nil || confirm != (Confirm{Kind: ConfirmSuccess, SelectedProtocol: ProtocolRDP}) {
		t.Fatalf("%+v %v", confirm, err)
	}
	if !bytes.Equal(BuildConnectionConfirm(confirm), specConfirm) {
		t.Fatal("the spec confirm does not rebuild")
	}
}

func TestRequestsAndConfirmsRoundTrip(t *testing.T) {
	for _, protocols := range []uint32{ProtocolSSL, ProtocolSSL | ProtocolHybrid, ProtocolHybridEx | ProtocolHybrid | ProtocolSSL} {
		for _, cookie := range []string{"", "bob"} {
			got, err := ParseConnectionRequest(BuildConnectionRequest(protocols, cookie))
			if err != nil || got != protocols {
				t.Errorf("%d %q: %d %v", protocols, cookie, got, err)
			}
		}
	}
	legacy, err := ParseConnectionRequestFields(BuildLegacyConnectionRequest())
	if err != nil || legacy.Negotiation || legacy.RequestedProtocols != ProtocolRDP {
		t.Errorf("legacy: %+v %v", legacy, err)
	}
	for _, confirm := range []Confirm{
		{Kind: ConfirmSuccess, SelectedProtocol: ProtocolHybrid, Flags: 0x1f},
		{Kind: ConfirmFailure, FailureCode: 5},
		{Kind: ConfirmNone},
	} {
		got, err := ParseConnectionConfirm(BuildConnectionConfirm(confirm))
		if err != nil || got != confirm {
			t.Errorf("%+v: %+v %v", confirm, got, err)
		}
	}
	// A routing token and correlation info, as mstsc sends them.
	withToken := unhex("03 00 00 23 1e e0 00 00 00 00 00 43 6f 6f 6b 69 65 3a 20 6d 73 74 73 3d 31 0d 0a 01 00 08 00 03 00 00 00")
	fields, err := ParseConnectionRequestFields(withToken)
	if err != nil || string(fields.RoutingToken) != "Cookie: msts=1" || fields.RequestedProtocols != 3 {
		t.Errorf("routing token: %+v %v", fields, err)
	}
	correlation := append(unhex("03 00 00 37 32 e0 00 00 00 00 00 01 08 08 00 01 00 00 00 06 00 24 00"), bytes.Repeat([]byte{7}, 32)...)
	fields, err = ParseConnectionRequestFields(correlation)
	if err != nil || len(fields.CorrelationID) != 16 || fields.CorrelationID[0] != 7 {
		t.Errorf("correlation info: %+v %v", fields, err)
	}
}

func mutate(b []byte, at int, value byte) []byte {
	out := append([]byte(nil), b...)
	out[at] = value
	return out
}

func TestMalformedRequests(t *testing.T) {
	good := BuildConnectionRequest(ProtocolSSL, "bob")
	cases := []struct {
		pdu  []byte
		want string
	}{
		{good[:10], `^connection request of 10 bytes is shorter than 11$`},
		{mutate(good, 0, 0x04), `^connection request does not start with a tpkt header \(03 00\), got 0400$`},
		{mutate(good, 3, byte(len(good)+1)), `tpkt length \d+ does not match`},
		{append(append([]byte(nil), good...), 0), `does not match the \d+ bytes given`},
		{mutate(good, 4, byte(len(good)-4)), `length indicator \d+ does not match tpkt length \d+ \(expected \d+\)`},
		{mutate(good, 5, 0xd0), `tpdu code is 0xd0, expected 0xe0`},
		{mutate(good, len(good)-8, 0x02), `negotiation type is 2, expected 1 \(RDP_NEG_REQ\)`},
		{mutate(good, len(good)-6, 0x09), `RDP_NEG_REQ length is 9, expected 8`},
		{unhex("03 00 00 10 0b e0 00 00 00 00 00 43 6f 6f 6b 69"), `not terminated by CR LF`},
		{unhex("03 00 00 0f 0a e0 00 00 00 00 00 0d 0a 01 00"), `2 bytes after the cookie`},
		{mutate(BuildConnectionRequest(1, ""), 12, 0x08), `RDP_CORRELATION_INFO needs 36 bytes, 0 follow`},
	}
	for _, c := range cases {
		_, err := ParseConnectionRequest(c.pdu)
		var x224 *X224Error
		if !errors.As(err, &x224) || x224.Code() != "x224-invalid" || !regexp.MustCompile(c.want).MatchString(err.Error()) {
			t.Errorf("% x: %v, want %s", c.pdu, err, c.want)
		}
	}
}

func TestMalformedConfirms(t *testing.T) {
	good := BuildConnectionConfirm(Confirm{Kind: ConfirmSuccess, SelectedProtocol: ProtocolSSL})
	cases := []struct {
		pdu  []byte
		want string
	}{
		{mutate(good, 5, 0xe0), `tpdu code is 0xe0, expected 0xd0`},
		{mutate(good, 4, 6), `length indicator 6`},
		{mutate(good, 11, 0x04), `negotiation type is 4, expected 2 \(RDP_NEG_RSP\) or 3 \(RDP_NEG_FAILURE\)`},
		{mutate(good, 13, 0x07), `negotiation response length is 7, expected 8`},
		{unhex("03 00 00 0f 0a d0 00 00 12 34 00 02 00 08 00"), `4 bytes of negotiation data`},
		{good[:11], `tpkt length 19 does not match the 11 bytes`},
	}
	for _, c := range cases {
		_, err := ParseConnectionConfirm(c.pdu)
		var x224 *X224Error
		if !errors.As(err, &x224) || !regexp.MustCompile(c.want).MatchString(err.Error()) {
			t.Errorf("% x: %v, want %s", c.pdu, err, c.want)
		}
	}
}

func TestRelayedProtocolName(t *testing.T) {
	for selected, want := range map[uint32]string{ProtocolSSL: "ssl", ProtocolHybrid: "hybrid", ProtocolHybridEx: "hybrid-ex", ProtocolRDP: "", ProtocolRDSTLS: "", ProtocolSSL | ProtocolHybrid: ""} {
		name, ok := RelayedProtocolName(selected)
		if name != want || ok != (want != "") {
			t.Errorf("%d: %q %v", selected, name, ok)
		}
	}
}
