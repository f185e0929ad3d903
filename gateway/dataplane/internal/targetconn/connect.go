package targetconn

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/pdu"
	"lanterna/dataplane/rawsocket"
)

// Connect makes the server leg: TCP (TCP_NODELAY) to req.Address, the
// Connection Request and the server's Confirm (capped at MaxConfirmBytes),
// TLS, and judge on the certificate's facts. It returns the connection
// ready to relay, or the session's error (a server's RDP_NEG_FAILURE with
// its Confirm in Error.Confirm). Cancelling ctx aborts whichever phase is
// under way at once: the error is ctx's cause when that is a
// *sessionerr.Error, else gateway-shutdown in that phase.
func Connect(ctx context.Context, req Request, judge Judge) (*Connected, *sessionerr.Error) {
	if err := CheckRequest(req.ConnectionRequest, req.RequireNla); err != nil {
		return nil, err
	}
	started := time.Now()
	tcp, failure := openTCP(ctx, req)
	if failure != nil {
		return nil, failure
	}
	req.phase(PhaseConnect, time.Since(started))

	// From here until the handshake is over, an abort interrupts whatever read
	// or write is blocked: the connection's deadline moves to the past.
	aborted := context.AfterFunc(ctx, func() { _ = tcp.SetDeadline(time.Unix(1, 0)) })
	connected, failure := secure(ctx, req, tcp, judge)
	if !aborted() && failure == nil {
		// The abort fired after the handshake: the session is over anyway.
		failure = sessionerr.Aborted(ctx, sessionerr.PhaseTLS)
	}
	if failure != nil {
		if connected != nil {
			_ = connected.Conn.Close()
		}
		_ = tcp.Close()
		return nil, failure
	}
	return connected, nil
}

func (t Timeouts) write() time.Duration {
	if t.Write > 0 {
		return t.Write
	}
	return t.Confirm
}

func (req *Request) phase(phase string, d time.Duration) {
	if req.OnPhase != nil {
		req.OnPhase(phase, d)
	}
}

func secure(ctx context.Context, req Request, tcp *net.TCPConn, judge Judge) (*Connected, *sessionerr.Error) {
	started := time.Now()
	_ = tcp.SetWriteDeadline(time.Now().Add(req.Timeouts.write()))
	if ctx.Err() != nil {
		// the abort may have moved the deadline just before this call moved it back
		return nil, sessionerr.Aborted(ctx, sessionerr.PhaseX224)
	}
	if _, err := tcp.Write(req.ConnectionRequest); err != nil {
		return nil, confirmReadFailure(ctx, err, 0)
	}
	confirm, failure := readConfirm(ctx, tcp, req.Timeouts.Confirm)
	if failure != nil {
		return nil, failure
	}
	protocol, failure := acceptedProtocol(confirm)
	if failure != nil {
		return nil, failure
	}
	if req.RequireNla && protocol == "ssl" {
		return nil, sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeNegotiationFailed,
			"the presenter's computer chose plain TLS, and the gateway requires Network Level Authentication")
	}
	req.phase(PhaseX224, time.Since(started))

	started = time.Now()
	conn, failure := startTLS(ctx, req, tcp)
	if failure != nil {
		return nil, failure
	}
	req.phase(PhaseTLS, time.Since(started))
	secured, failure := judgeCertificate(ctx, conn, req, protocol, judge)
	if failure != nil {
		return &Connected{Conn: conn}, failure
	}
	if peerGone(tcp) {
		return &Connected{Conn: conn}, sessionerr.New(sessionerr.PhaseTLS, sessionerr.CodeServerError, "the presenter's computer closed the connection right after the secure handshake")
	}
	return &Connected{Conn: conn, Confirm: confirm, Secured: secured, Address: req.Address}, nil
}

func dialAddress(address string, port int) string {
	return net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(address, "["), "]"), strconv.Itoa(port))
}

func openTCP(ctx context.Context, req Request) (*net.TCPConn, *sessionerr.Error) {
	if ctx.Err() != nil {
		return nil, sessionerr.Aborted(ctx, sessionerr.PhaseConnect)
	}
	dialCtx, cancel := context.WithTimeout(ctx, req.Timeouts.Connect)
	defer cancel()
	var dialer net.Dialer
	conn, err := dialer.DialContext(dialCtx, "tcp", dialAddress(req.Address, req.Port))
	if err != nil {
		if ctx.Err() != nil {
			return nil, sessionerr.Aborted(ctx, sessionerr.PhaseConnect)
		}
		if dialCtx.Err() != nil {
			return nil, sessionerr.New(sessionerr.PhaseConnect, sessionerr.CodeTimeout,
				fmt.Sprintf("the presenter's computer did not answer within %d ms", req.Timeouts.Connect.Milliseconds())).
				WithDetail("phase", "connect").WithInternal("address", req.Address).WithInternal("port", req.Port)
		}
		code := errorCode(err)
		if code == "ECONNREFUSED" {
			return nil, sessionerr.New(sessionerr.PhaseConnect, sessionerr.CodeTargetRefused, "").WithDetail("error", code)
		}
		return nil, sessionerr.New(sessionerr.PhaseConnect, sessionerr.CodeTargetUnreachable, "").WithDetail("error", code)
	}
	tcp := conn.(*net.TCPConn)
	_ = tcp.SetNoDelay(true)
	return tcp, nil
}

// errnoNames are Node's error.code for the system errors a connection meets.
var errnoNames = map[syscall.Errno]string{
	syscall.ECONNREFUSED:  "ECONNREFUSED",
	syscall.ECONNRESET:    "ECONNRESET",
	syscall.ECONNABORTED:  "ECONNABORTED",
	syscall.EHOSTUNREACH:  "EHOSTUNREACH",
	syscall.ENETUNREACH:   "ENETUNREACH",
	syscall.ENETDOWN:      "ENETDOWN",
	syscall.EHOSTDOWN:     "EHOSTDOWN",
	syscall.ETIMEDOUT:     "ETIMEDOUT",
	syscall.EPIPE:         "EPIPE",
	syscall.EADDRNOTAVAIL: "EADDRNOTAVAIL",
	syscall.EADDRINUSE:    "EADDRINUSE",
	syscall.EAFNOSUPPORT:  "EAFNOSUPPORT",
	syscall.EACCES:        "EACCES",
	syscall.EPERM:         "EPERM",
	syscall.EINVAL:        "EINVAL",
	syscall.EMFILE:        "EMFILE",
	syscall.ENFILE:        "ENFILE",
	syscall.ENOBUFS:       "ENOBUFS",
}

// errorCode is Node's error.code for err when it is a known system error, else err's text.
func errorCode(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if name, ok := errnoNames[errno]; ok {
			return name
		}
		return errno.Error()
	}
	return err.Error()
}

// isTimeout: the read or write ran into the phase's deadline (or an abort moved it to the past).
func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}

func readConfirm(ctx context.Context, tcp *net.TCPConn, timeout time.Duration) ([]byte, *sessionerr.Error) {
	if ctx.Err() != nil {
		return nil, sessionerr.Aborted(ctx, sessionerr.PhaseX224)
	}
	_ = tcp.SetReadDeadline(time.Now().Add(timeout))
	if ctx.Err() != nil {
		// The abort may have moved the deadline just before this call moved it back.
		return nil, sessionerr.Aborted(ctx, sessionerr.PhaseX224)
	}
	var buffer [MaxConfirmBytes + 1]byte
	received := 0
	for {
		n, err := tcp.Read(buffer[received:])
		received += n
		if n > 0 {
			confirm, reason := replyOf(buffer[:received])
			if reason != "" {
				return nil, x224Invalid(reason)
			}
			if confirm != nil {
				_ = tcp.SetReadDeadline(time.Time{})
				return append([]byte(nil), confirm...), nil
			}
		}
		if err != nil {
			return nil, confirmReadFailure(ctx, err, received)
		}
	}
}

// replyOf judges what arrived so far as readOnePdu does for a TPKT reply:
// the whole reply when it is in, a reason when it is not RDP, neither while
// more is needed.
func replyOf(received []byte) ([]byte, string) {
	if received[0] != pdu.TpktVersion {
		head := received
		if len(head) > 4 {
			head = head[:4]
		}
		return nil, fmt.Sprintf("reply does not start with a tpkt header (first bytes %x)", head)
	}
	length, err := pdu.ReadLength(received, pdu.ModeRDP, pdu.LargestAllowedLimit, 0)
	if err != nil {
		return nil, "reply is not a pdu: " + err.Message
	}
	if length < 0 {
		return nil, ""
	}
	if length > MaxConfirmBytes {
		return nil, fmt.Sprintf("reply announces %d bytes, more than the %d allowed", length, MaxConfirmBytes)
	}
	if len(received) < length {
		return nil, ""
	}
	if rest := len(received) - length; rest > 0 {
		return nil, fmt.Sprintf("peer sent %d bytes after its %d-byte reply", rest, length)
	}
	return received, ""
}

func x224Invalid(reason string) *sessionerr.Error {
	return sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeX224Invalid, "").WithInternal("reason", reason)
}

func confirmReadFailure(ctx context.Context, err error, received int) *sessionerr.Error {
	if ctx.Err() != nil {
		return sessionerr.Aborted(ctx, sessionerr.PhaseX224)
	}
	if isTimeout(err) {
		return sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeTimeout, "the presenter's computer did not confirm the connection in time").
			WithDetail("phase", "x224")
	}
	message := "the stream ended before any reply"
	if received > 0 {
		message = fmt.Sprintf("the stream ended %d bytes into the reply", received)
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		message = "read " + errorCode(err)
	} else if !errors.Is(err, io.EOF) {
		message = err.Error()
	}
	return sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeTargetRefused, "the presenter's computer closed the connection: "+message)
}

func acceptedProtocol(confirm []byte) (string, *sessionerr.Error) {
	parsed, err := pdu.ParseConnectionConfirm(confirm)
	if err != nil {
		return "", x224Invalid(err.Error())
	}
	switch parsed.Kind {
	case pdu.ConfirmFailure:
		failure := sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeNegotiationFailed, "").WithDetail("failureCode", parsed.FailureCode)
		failure.Confirm = confirm
		return "", failure
	case pdu.ConfirmNone:
		return "", sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeLegacySecurity, "")
	}
	name, ok := pdu.RelayedProtocolName(parsed.SelectedProtocol)
	if !ok {
		if parsed.SelectedProtocol == pdu.ProtocolRDP {
			return "", sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeLegacySecurity, "")
		}
		return "", sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeNegotiationFailed,
			"the presenter chose a security protocol the gateway does not relay").
			WithDetail("selectedProtocol", parsed.SelectedProtocol)
	}
	return name, nil
}

func startTLS(ctx context.Context, req Request, tcp *net.TCPConn) (*tls.Conn, *sessionerr.Error) {
	if ctx.Err() != nil {
		return nil, sessionerr.Aborted(ctx, sessionerr.PhaseTLS)
	}
	// raw system calls under TLS, as the kiosk leg's (package rawsocket has
	// the profile), over a socket the relay's event loop can take over
	socket := edgeloop.NewSocket(rawsocket.Wrap(tcp))
	// every write on the leg has a deadline, also TLS's answer to a server's
	// key update made inside a read, which no read deadline frees
	socket.LimitWriteStall(req.Timeouts.write())
	conn := tls.Client(socket, clientConfig(req.Host))
	handshakeCtx, cancel := context.WithTimeout(ctx, req.Timeouts.TLS)
	defer cancel()
	err := conn.HandshakeContext(handshakeCtx)
	if err == nil {
		return conn, nil
	}
	if ctx.Err() != nil {
		return nil, sessionerr.Aborted(ctx, sessionerr.PhaseTLS)
	}
	if handshakeCtx.Err() != nil {
		return nil, sessionerr.New(sessionerr.PhaseTLS, sessionerr.CodeTimeout,
			fmt.Sprintf("the TLS handshake did not finish within %d ms", req.Timeouts.TLS.Milliseconds())).
			WithDetail("phase", "tls")
	}
	return nil, sessionerr.New(sessionerr.PhaseTLS, sessionerr.CodeTLSFailed, "").
		WithDetail("error", tlsErrorCode(err)).WithInternal("reason", err.Error())
}

// tlsErrorCode is a system error's Node code, else "tls-error" (Node's OpenSSL codes have no Go twin).
func tlsErrorCode(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errorCode(err)
	}
	return "tls-error"
}

func judgeCertificate(ctx context.Context, conn *tls.Conn, req Request, protocol string, judge Judge) (Secured, *sessionerr.Error) {
	state := conn.ConnectionState()
	if len(state.PeerCertificates) == 0 {
		return Secured{}, sessionerr.New(sessionerr.PhaseTLS, sessionerr.CodeCertificateUntrusted, "the presenter sent no certificate")
	}
	leaf := state.PeerCertificates[0].Raw
	publicKey, err := pdu.SubjectPublicKey(leaf)
	if err != nil {
		return Secured{}, sessionerr.New(sessionerr.PhaseTLS, sessionerr.CodeInternal, "").WithInternal("reason", err.Error())
	}
	caVerified, caError := verifyChain(state.PeerCertificates, req.Roots, req.Host)
	facts := CertificateFacts{
		Host: req.Host, Port: req.Port, Address: req.Address,
		Fingerprint: pdu.Sha256Fingerprint(leaf), CAVerified: caVerified, CAError: caError,
	}
	trust, failure := judge(ctx, facts)
	if failure != nil {
		return Secured{}, failure
	}
	if ctx.Err() != nil {
		return Secured{}, sessionerr.Aborted(ctx, sessionerr.PhaseTLS)
	}
	certificates := make([]string, len(state.PeerCertificates))
	for i, certificate := range state.PeerCertificates {
		certificates[i] = base64.StdEncoding.EncodeToString(certificate.Raw)
	}
	return Secured{
		Protocol:     protocol,
		TLSVersion:   tlsVersionName(state.Version),
		Cipher:       tls.CipherSuiteName(state.CipherSuite),
		Certificates: certificates,
		PublicKey:    base64.StdEncoding.EncodeToString(publicKey),
		Fingerprint:  facts.Fingerprint,
		Trust:        trust,
	}, nil
}

// tlsVersionName is the version as Node's getProtocol() prints it.
func tlsVersionName(version uint16) string {
	switch version {
	case tls.VersionTLS10:
		return "TLSv1"
	case tls.VersionTLS11:
		return "TLSv1.1"
	case tls.VersionTLS12:
		return "TLSv1.2"
	case tls.VersionTLS13:
		return "TLSv1.3"
	}
	return "unknown"
}
