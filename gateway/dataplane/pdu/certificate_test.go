package pdu

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"regexp"
	"testing"
	"time"
)

func selfSigned(t *testing.T, key any, public any) []byte {
	t.Helper()
	template := &x509.Certificate{
		SerialNumber: big.NewInt(42),
		Subject:      pkix.Name{CommonName: "presenter"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, public, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func TestSubjectPublicKeyIsWhatCredSspBindsTo(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der := selfSigned(t, rsaKey, &rsaKey.PublicKey)
	got, err := SubjectPublicKey(der)
	// PKCS#1 RSAPublicKey: 270 bytes for RSA-2048, not the whole 294-byte SPKI.
	if err != nil || !bytes.Equal(got, x509.MarshalPKCS1PublicKey(&rsaKey.PublicKey)) || len(got) != 270 {
		t.Fatalf("rsa: %d bytes, %v", len(got), err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der = selfSigned(t, ecKey, &ecKey.PublicKey)
	got, err = SubjectPublicKey(der)
	point, _ := ecKey.PublicKey.Bytes()
	if err != nil || !bytes.Equal(got, point) {
		t.Fatalf("ec: % x, %v", got, err)
	}
	for _, bad := range [][]byte{nil, {0x30}, {0x30, 0x03, 0x02, 0x01, 0x00}, der[:len(der)-1], append(append([]byte(nil), der...), 0)} {
		if _, err := SubjectPublicKey(bad); err == nil {
			t.Errorf("% x accepted", bad)
		}
	}
}

func TestSha256Fingerprint(t *testing.T) {
	der := []byte("not really a certificate")
	digest := sha256.Sum256(der)
	got := Sha256Fingerprint(der)
	if !regexp.MustCompile(`^sha256:([0-9A-F]{2}:){31}[0-9A-F]{2}$`).MatchString(got) || got[7:9] != fmt.Sprintf("%02X", digest[0]) {
		t.Fatal(got)
	}
}
