package targetconn

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"time"
)

// clientConfig is the server leg's TLS: Go's handshake, no verification of
// its own (the certificate is judged by Node's policy after it), SNI for a
// name only, as Node sends it. Suites: Go's TLS 1.2 and 1.3 defaults plus
// the RSA key exchange and CBC-SHA256 ones OpenSSL's default list (Node's)
// still offers, which older Windows servers may need.
func clientConfig(host string) *tls.Config {
	config := &tls.Config{
		InsecureSkipVerify: true, //nolint:gosec // Node's Judge decides; verifyChain gives it the CA facts
		MinVersion:         tls.VersionTLS12,
		CipherSuites:       cipherSuites,
	}
	if name := canonicalAddress(host); net.ParseIP(name) == nil {
		config.ServerName = name
	}
	return config
}

var cipherSuites = func() []uint16 {
	var suites []uint16
	for _, suite := range tls.CipherSuites() {
		for _, version := range suite.SupportedVersions {
			if version == tls.VersionTLS12 {
				suites = append(suites, suite.ID)
				break
			}
		}
	}
	// Not Go's defaults any more, still in OpenSSL's (Node's "HIGH"): RSA key
	// exchange and the SHA-256 CBC suites. Named here, Go offers them.
	return append(suites,
		tls.TLS_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
		tls.TLS_RSA_WITH_AES_128_CBC_SHA256, tls.TLS_RSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_AES_256_CBC_SHA,
	)
}()

// canonicalAddress is canonicalHost/canonicalAddress of policy/canonicalHost.ts
// for comparing with a certificate: a name in lower case without trailing
// dots, an IP literal without brackets.
func canonicalAddress(host string) string {
	text := strings.TrimSpace(host)
	text = strings.TrimSuffix(strings.TrimPrefix(text, "["), "]")
	if ip := net.ParseIP(text); ip != nil {
		if v4 := ip.To4(); v4 != nil {
			return v4.String()
		}
		return ip.String()
	}
	if zone := strings.IndexByte(text, '%'); zone >= 0 {
		if ip := net.ParseIP(text[:zone]); ip != nil {
			return ip.String() + text[zone:]
		}
	}
	return strings.TrimRight(strings.ToLower(text), ".")
}

// verifyChain is judgeCertificate's caVerified: the chain the server sent
// verifies against roots (the configured CA alone; nil: the system's), is
// for server authentication (a certificate that names extended key usages
// must name serverAuth, as OpenSSL's "ssl_server" purpose check that Node
// makes), and names host (a name: its DNS SANs; an IP literal: its IP
// SANs). When not, the reason, in OpenSSL's words where Node would print
// those (the display shows it).
func verifyChain(chain []*x509.Certificate, roots *x509.CertPool, host string) (bool, string) {
	leaf := chain[0]
	intermediates := x509.NewCertPool()
	for _, certificate := range chain[1:] {
		intermediates.AddCert(certificate)
	}
	_, err := leaf.Verify(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: intermediates,
		CurrentTime:   time.Now(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	if err != nil {
		return false, verifyErrorName(chain, err)
	}
	if err := leaf.VerifyHostname(canonicalAddress(host)); err != nil {
		return false, "certificate is not for " + host
	}
	return true, ""
}

func verifyErrorName(chain []*x509.Certificate, err error) string {
	var invalid x509.CertificateInvalidError
	if errors.As(err, &invalid) {
		switch invalid.Reason {
		case x509.Expired:
			if time.Now().Before(invalid.Cert.NotBefore) {
				return "CERT_NOT_YET_VALID"
			}
			return "CERT_HAS_EXPIRED"
		case x509.IncompatibleUsage:
			return "UNSUPPORTED_CERTIFICATE_PURPOSE"
		}
		return invalid.Error()
	}
	var unknown x509.UnknownAuthorityError
	if errors.As(err, &unknown) {
		last := chain[len(chain)-1]
		selfSigned := bytes.Equal(last.RawIssuer, last.RawSubject)
		switch {
		case selfSigned && len(chain) == 1:
			return "DEPTH_ZERO_SELF_SIGNED_CERT"
		case selfSigned:
			return "SELF_SIGNED_CERT_IN_CHAIN"
		case len(chain) == 1:
			return "UNABLE_TO_VERIFY_LEAF_SIGNATURE"
		}
		return "UNABLE_TO_GET_ISSUER_CERT_LOCALLY"
	}
	return err.Error()
}
