package rdpwire

import (
	"encoding/hex"
	"strings"
	"testing"
)

// Bytes from @lanterna/protocol's buildConnectionRequest / buildConnectionConfirm.
const (
	requestSSLWithCookie      = "0300002e29e00000000000436f6f6b69653a206d737473686173683d6c6f6164746573740d0a0100080001000000"
	requestWithCorrelation    = "0300003732e000000000000108080003000000060024000707070707070707070707070707070700000000000000000000000000000000"
	requestLegacyCookieOnly   = "0300001f1ae00000000000436f6f6b69653a206d737473686173683d780d0a"
	confirmSSLFromTheProtocol = "030000130ed000001234000200080001000000"
)

func unhex(t *testing.T, text string) []byte {
	t.Helper()
	b, err := hex.DecodeString(text)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseRequestedProtocolsReadsWhatTheProtocolPackageBuilds(t *testing.T) {
	for _, c := range []struct {
		name, pdu string
		want      uint32
	}{
		{"ssl with a cookie", requestSSLWithCookie, ProtocolSSL},
		{"ssl and hybrid with correlation info", requestWithCorrelation, 3},
		{"legacy: a cookie and no negotiation", requestLegacyCookieOnly, 0},
	} {
		got, err := ParseRequestedProtocols(unhex(t, c.pdu))
		if err != nil || got != c.want {
			t.Errorf("%s: %d, %v", c.name, got, err)
		}
	}
}

func TestParseRequestedProtocolsRefusesMalformedRequests(t *testing.T) {
	good := unhex(t, requestSSLWithCookie)
	cases := map[string][]byte{
		"short":             good[:10],
		"not tpkt":          append([]byte{0x04}, good[1:]...),
		"length mismatch":   good[:len(good)-1],
		"a confirm":         unhex(t, confirmSSLFromTheProtocol),
		"cookie without lf": unhex(t, strings.Replace(requestLegacyCookieOnly, "0d0a", "2020", 1)),
	}
	for name, pdu := range cases {
		if _, err := ParseRequestedProtocols(pdu); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestBuildConnectionConfirmMatchesTheProtocolPackageAndPassesTheCheck(t *testing.T) {
	confirm := BuildConnectionConfirm(ProtocolSSL, 0)
	if hex.EncodeToString(confirm) != confirmSSLFromTheProtocol {
		t.Fatalf("confirm %x", confirm)
	}
	if err := ExpectTLSConfirm(confirm, "echo host"); err != nil {
		t.Fatal(err)
	}
	if err := ExpectTLSConfirm(BuildConnectionConfirm(2, 0), "echo host"); err == nil || !strings.Contains(err.Error(), "selected protocol 2") {
		t.Fatalf("hybrid accepted: %v", err)
	}
}
