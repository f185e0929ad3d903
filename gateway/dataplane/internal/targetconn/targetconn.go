// Package targetconn is the server leg's handshake (gateway/src/connect/
// targetConnector.ts in Go): TCP to the address Node resolved and allowed,
// the display's X.224 Connection Request and the server's Confirm, TLS, and
// the certificate's facts for Node to judge. Every phase has its own
// deadline and its own typed error, with the phases, codes and details the
// Node engine gives; every read is capped. Nothing is trusted that Node's
// Judge did not trust.
package targetconn

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"time"

	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/pdu"
)

// MaxConfirmBytes caps the server's Connection Confirm: its reply is a few
// dozen bytes; anything near this is not RDP.
const MaxConfirmBytes = 1024

// Handshake phases reported to OnPhase.
const (
	PhaseConnect = "connect"
	PhaseX224    = "x224"
	PhaseTLS     = "tls"
)

// Timeouts are the phases' deadlines.
type Timeouts struct {
	Connect, Confirm, TLS time.Duration
	// Write bounds each write on the leg that waits for the server's room
	// (the Connection Request's, TLS's own, a key update's answer inside a
	// read); 0: the Confirm's timeout.
	Write time.Duration
}

// Request is one server connection to make.
type Request struct {
	// Host and Port are the grant's target as the broker gave it: Host is
	// the name the certificate must name (or an IP literal, its IP SAN).
	Host string
	Port int
	// Address is the IP literal to connect to, already resolved and allowed by Node.
	Address string
	// ConnectionRequest is the display's X.224 Connection Request, sent as it is.
	ConnectionRequest []byte
	// RequireNla refuses plain TLS: without NLA a server (or someone in the
	// middle) could pick TLS after the display offered NLA.
	RequireNla bool
	Timeouts   Timeouts
	// Roots verify the chain for CAVerified: the configured CA alone (certificates.caFile,
	// as Node's tls `ca` replaces its roots); nil is the system's roots.
	Roots *x509.CertPool
	// OnPhase reports each finished phase (connect, x224, tls) and how long it took.
	OnPhase func(phase string, d time.Duration)
}

// CertificateFacts are what Node's certificate policy judges.
type CertificateFacts struct {
	Host        string
	Port        int
	Address     string
	Fingerprint string
	// CAVerified: the chain verifies against Roots and names Host.
	CAVerified bool
	// CAError says why not, when not (shown to the display with an untrusted certificate).
	CAError string
}

// Judge asks Node's certificate policy: the trust (pinned, first-use, ca,
// insecure) or the tls phase's error (certificate-untrusted,
// certificate-changed) to end the session with.
type Judge func(ctx context.Context, facts CertificateFacts) (trust string, err *sessionerr.Error)

// Secured is what the `secured` message and notification carry.
type Secured struct {
	// Protocol: ssl, hybrid or hybrid-ex.
	Protocol string
	// TLSVersion as Node prints it: "TLSv1.2", "TLSv1.3".
	TLSVersion string
	// Cipher is the suite's standard (IANA) name.
	Cipher string
	// Certificates are the server's chain as it sent it, base64 DER, leaf first.
	Certificates []string
	// PublicKey is the leaf's SubjectPublicKey, base64 (what CredSSP binds to).
	PublicKey   string
	Fingerprint string
	Trust       string
}

// Connected is a server leg ready to relay.
type Connected struct {
	Conn *tls.Conn
	// Confirm is the server's Connection Confirm, for the display.
	Confirm []byte
	Secured Secured
	Address string
}

// Relayed security protocols (the bits CheckRequest wants one of).
const relayedProtocols = pdu.ProtocolSSL | pdu.ProtocolHybrid | pdu.ProtocolHybridEx
const nlaProtocols = pdu.ProtocolHybrid | pdu.ProtocolHybridEx
