package pdu

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// CertificateKeyError says why a certificate's key could not be read.
type CertificateKeyError struct{ Message string }

func (e *CertificateKeyError) Error() string { return e.Message }

func keyErrorf(format string, args ...any) *CertificateKeyError {
	return &CertificateKeyError{Message: fmt.Sprintf(format, args...)}
}

type derElement struct {
	tag               byte
	contentStart, end int
}

const (
	tagSequence  = 0x30
	tagBitString = 0x03
	// tagExplicitVersion is tbsCertificate's optional [0] EXPLICIT version.
	tagExplicitVersion = 0xa0
)

func readDerElement(der []byte, offset, limit int) (derElement, error) {
	if offset+2 > limit {
		return derElement{}, keyErrorf("der element at offset %d is truncated", offset)
	}
	tag := der[offset]
	first := der[offset+1]
	length := int(first)
	contentStart := offset + 2
	if first&0x80 != 0 {
		n := int(first & 0x7f)
		if n == 0 || n > 4 {
			return derElement{}, keyErrorf("der length form 0x%x at offset %d", first, offset+1)
		}
		if contentStart+n > limit {
			return derElement{}, keyErrorf("der length at offset %d is truncated", offset+1)
		}
		length = 0
		for i := 0; i < n; i++ {
			length = length<<8 | int(der[contentStart+i])
		}
		contentStart += n
	}
	end := contentStart + length
	if end > limit {
		return derElement{}, keyErrorf("der element at offset %d runs %d bytes past its container", offset, end-limit)
	}
	return derElement{tag, contentStart, end}, nil
}

// SubjectPublicKeyInfo is the SubjectPublicKeyInfo DER inside a DER
// certificate, found by walking tbsCertificate (RFC 5280 4.1): version?,
// serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo.
// It does not judge the rest of the certificate (crypto/tls has parsed it).
func SubjectPublicKeyInfo(der []byte) ([]byte, error) {
	certificate, err := readDerElement(der, 0, len(der))
	if err != nil {
		return nil, keyErrorf("not a der x.509 certificate: %s", err)
	}
	if certificate.tag != tagSequence || certificate.end != len(der) {
		return nil, keyErrorf("not a der x.509 certificate: not one der sequence")
	}
	tbs, err := readDerElement(der, certificate.contentStart, certificate.end)
	if err != nil || tbs.tag != tagSequence {
		return nil, keyErrorf("not a der x.509 certificate: no tbsCertificate sequence")
	}
	at := tbs.contentStart
	skip := 5 // serialNumber, signature, issuer, validity, subject
	if at < tbs.end && der[at] == tagExplicitVersion {
		skip++
	}
	for ; skip > 0; skip-- {
		element, err := readDerElement(der, at, tbs.end)
		if err != nil {
			return nil, keyErrorf("not a der x.509 certificate: %s", err)
		}
		at = element.end
	}
	spki, err := readDerElement(der, at, tbs.end)
	if err != nil || spki.tag != tagSequence {
		return nil, keyErrorf("not a der x.509 certificate: no subjectPublicKeyInfo sequence")
	}
	return der[at:spki.end], nil
}

// SubjectPublicKeyFromSpki is the SubjectPublicKey (the BIT STRING's
// contents without the unused-bits octet) of an SPKI: what CredSSP binds to
// (PKCS#1 RSAPublicKey for RSA, the EC point for EC).
func SubjectPublicKeyFromSpki(spki []byte) ([]byte, error) {
	outer, err := readDerElement(spki, 0, len(spki))
	if err != nil {
		return nil, err
	}
	if outer.tag != tagSequence || outer.end != len(spki) {
		return nil, keyErrorf("subjectPublicKeyInfo is not one der sequence")
	}
	algorithm, err := readDerElement(spki, outer.contentStart, outer.end)
	if err != nil {
		return nil, err
	}
	if algorithm.tag != tagSequence {
		return nil, keyErrorf("subjectPublicKeyInfo algorithm is not a sequence")
	}
	bitString, err := readDerElement(spki, algorithm.end, outer.end)
	if err != nil {
		return nil, err
	}
	if bitString.tag != tagBitString || bitString.end != outer.end {
		return nil, keyErrorf("subjectPublicKeyInfo does not end with a bit string")
	}
	if bitString.end-bitString.contentStart < 2 {
		return nil, keyErrorf("subjectPublicKey bit string is empty")
	}
	if unused := spki[bitString.contentStart]; unused != 0 {
		return nil, keyErrorf("subjectPublicKey has %d unused bits", unused)
	}
	return spki[bitString.contentStart+1 : bitString.end], nil
}

// SubjectPublicKey is a DER certificate's SubjectPublicKey (a slice of der).
func SubjectPublicKey(der []byte) ([]byte, error) {
	spki, err := SubjectPublicKeyInfo(der)
	if err != nil {
		return nil, err
	}
	return SubjectPublicKeyFromSpki(spki)
}

// Sha256Fingerprint is "sha256:AA:BB:…" over the whole DER certificate
// (what pins and the kiosk protocol show).
func Sha256Fingerprint(der []byte) string {
	digest := sha256.Sum256(der)
	text := strings.ToUpper(hex.EncodeToString(digest[:]))
	var out strings.Builder
	out.Grow(len("sha256:") + len(text)*3/2)
	out.WriteString("sha256:")
	for i := 0; i < len(text); i += 2 {
		if i > 0 {
			out.WriteByte(':')
		}
		out.WriteString(text[i : i+2])
	}
	return out.String()
}
