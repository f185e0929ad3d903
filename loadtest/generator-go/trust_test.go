package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// a wss:// echo of one binary frame, behind httptest's self-signed certificate (IP SAN 127.0.0.1)
func wssEcho(t *testing.T) (url string, caPem string) {
	t.Helper()
	upgrader := websocket.Upgrader{}
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		kind, data, err := conn.ReadMessage()
		if err == nil {
			_ = conn.WriteMessage(kind, data)
		}
	}))
	t.Cleanup(server.Close)
	certificate := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	return "wss" + strings.TrimPrefix(server.URL, "https") + "/", string(certificate)
}

func TestWssTrustsTheRelaysCertificateAndNothingElse(t *testing.T) {
	url, caPem := wssEcho(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	pinned, err := relayTrust(caPem)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := dialWebSocket(ctx, url, "", "", pinned, 5*time.Second)
	if err != nil {
		t.Fatalf("dial with the relay's certificate: %v", err)
	}
	if err := conn.writeFrame(opBinary, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	opcode, _, payload, err := conn.nextMessage()
	if err != nil || opcode != opBinary || string(payload) != "\x01\x02\x03" {
		t.Fatalf("echo over wss: opcode %d payload %v err %v", opcode, payload, err)
	}
	_ = conn.raw.Close()
	// the control sockets' dialer (gorilla) takes the same configuration
	control, response, err := dialer("", 5*time.Second, "", pinned).DialContext(ctx, url, nil)
	if response != nil && response.Body != nil {
		_ = response.Body.Close()
	}
	if err != nil {
		t.Fatalf("gorilla dial with the relay's certificate: %v", err)
	}
	_ = control.Close()

	unpinned, _ := relayTrust("")
	if _, err := dialWebSocket(ctx, url, "", "", unpinned, 5*time.Second); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("dial without the relay's certificate: want a certificate error, got %v", err)
	}
	other, _ := relayTrust(otherCertificatePem(t))
	if _, err := dialWebSocket(ctx, url, "", "", other, 5*time.Second); err == nil {
		t.Fatal("dial trusting another certificate: want an error")
	}
	if _, err := relayTrust("not a certificate"); err == nil {
		t.Fatal("relayTrust accepted text without a certificate")
	}
}

// another self-signed certificate for the same address: trusting it must not admit the relay's
func otherCertificatePem(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "another relay"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
