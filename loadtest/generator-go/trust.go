package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
)

// relayTrust is the TLS client configuration for wss:// relays (the gateway's
// kiosk listener or the pipe under --kiosk-tls): the relay's self-signed
// certificate, sent by the coordinator, is the only authority trusted, and
// the host name or IP is checked against it, as a kiosk pinned to its gateway
// would. Verification is never skipped; without a certificate the system's
// roots apply, which a self-signed relay fails.
func relayTrust(caPem string) (*tls.Config, error) {
	config := &tls.Config{MinVersion: tls.VersionTLS12}
	if caPem == "" {
		return config, nil
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(caPem)) {
		return nil, errors.New("relay certificate: no pem certificate in caPem")
	}
	config.RootCAs = roots
	return config, nil
}
