package targetconn

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"io"
	"math/big"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/pdu"
	"lanterna/dataplane/rawsocket"
)

const slow = 30 * time.Second

// issued is a certificate and its key, signed by ca (or self-signed when ca is nil).
type issued struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	der  []byte
}

func issue(t *testing.T, ca *issued, template *x509.Certificate) *issued {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template.SerialNumber = big.NewInt(time.Now().UnixNano())
	template.NotBefore = time.Now().Add(-time.Hour)
	if template.NotAfter.IsZero() {
		template.NotAfter = time.Now().Add(time.Hour)
	}
	parent, signer := template, key
	if ca != nil {
		parent, signer = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, template, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &issued{cert, key, der}
}

func newCA(t *testing.T) *issued {
	return issue(t, nil, &x509.Certificate{Subject: pkix.Name{CommonName: "test ca"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign})
}

func leafFor(t *testing.T, ca *issued, names ...string) *issued {
	template := &x509.Certificate{Subject: pkix.Name{CommonName: "presenter"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, name := range names {
		if ip := net.ParseIP(name); ip != nil {
			template.IPAddresses = append(template.IPAddresses, ip)
		} else {
			template.DNSNames = append(template.DNSNames, name)
		}
	}
	return issue(t, ca, template)
}

// server accepts connections on loopback and runs handle on each.
type server struct {
	listener net.Listener
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

func serve(t *testing.T, handle func(net.Conn)) *server {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{listener: listener}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, conn)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() { defer s.wg.Done(); handle(conn) }()
		}
	}()
	t.Cleanup(func() {
		_ = listener.Close()
		s.mu.Lock()
		for _, conn := range s.conns {
			_ = conn.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *server) port() int { return s.listener.Addr().(*net.TCPAddr).Port }

// readRequest reads the Connection Request the gateway sends.
func readRequest(conn net.Conn) bool {
	buffer := make([]byte, 1024)
	n, err := conn.Read(buffer)
	return err == nil && n > 0
}

// rdpServer confirms with confirm and then serves TLS with chain (leaf first), then echoes.
func rdpServer(t *testing.T, confirm []byte, chain ...*issued) *server {
	certificate := tls.Certificate{PrivateKey: chain[0].key}
	for _, c := range chain {
		certificate.Certificate = append(certificate.Certificate, c.der)
	}
	config := &tls.Config{Certificates: []tls.Certificate{certificate}}
	return serve(t, func(conn net.Conn) {
		if !readRequest(conn) {
			return
		}
		if _, err := conn.Write(confirm); err != nil {
			return
		}
		secured := tls.Server(conn, config)
		if secured.Handshake() != nil {
			return
		}
		_, _ = io.Copy(secured, secured)
	})
}

var sslConfirm = pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmSuccess, SelectedProtocol: pdu.ProtocolSSL})

func request(port int, overrides ...func(*Request)) Request {
	req := Request{
		Host: "127.0.0.1", Port: port, Address: "127.0.0.1",
		ConnectionRequest: pdu.BuildConnectionRequest(pdu.ProtocolSSL|pdu.ProtocolHybrid, ""),
		Timeouts:          Timeouts{Connect: slow, Confirm: slow, TLS: slow},
	}
	for _, override := range overrides {
		override(&req)
	}
	return req
}

type judged struct {
	mu    sync.Mutex
	facts []CertificateFacts
}

func (j *judged) judge(trust string, refusal *sessionerr.Error) Judge {
	return func(_ context.Context, facts CertificateFacts) (string, *sessionerr.Error) {
		j.mu.Lock()
		j.facts = append(j.facts, facts)
		j.mu.Unlock()
		return trust, refusal
	}
}

func trustAll(context.Context, CertificateFacts) (string, *sessionerr.Error) { return "insecure", nil }

func expectError(t *testing.T, connected *Connected, err *sessionerr.Error, phase, code string) *sessionerr.Error {
	t.Helper()
	if connected != nil {
		_ = connected.Conn.Close()
		t.Fatalf("connected, expected %s %s", phase, code)
	}
	if err == nil || err.Phase != phase || err.Code != code {
		t.Fatalf("got %v, expected %s %s", err, phase, code)
	}
	return err
}

func TestASelfSignedServerIsSecuredWithNodesFacts(t *testing.T) {
	leaf := leafFor(t, nil, "127.0.0.1")
	s := rdpServer(t, sslConfirm, leaf)
	var phases []string
	j := &judged{}
	connected, err := Connect(context.Background(), request(s.port(), func(r *Request) {
		r.OnPhase = func(phase string, d time.Duration) {
			if d < 0 {
				t.Errorf("%s took %v", phase, d)
			}
			phases = append(phases, phase)
		}
	}), j.judge("first-use", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer connected.Conn.Close()
	if strings.Join(phases, " ") != "connect x224 tls" {
		t.Errorf("phases %v", phases)
	}
	want := Secured{
		Protocol: "ssl", TLSVersion: "TLSv1.3", Cipher: connected.Secured.Cipher,
		Certificates: []string{base64.StdEncoding.EncodeToString(leaf.der)},
		PublicKey:    connected.Secured.PublicKey,
		Fingerprint:  pdu.Sha256Fingerprint(leaf.der), Trust: "first-use",
	}
	if !strings.HasPrefix(want.Cipher, "TLS_") || connected.Secured.PublicKey == "" {
		t.Errorf("cipher %q, public key %q", want.Cipher, connected.Secured.PublicKey)
	}
	if strings.Join(connected.Secured.Certificates, ",") != strings.Join(want.Certificates, ",") || connected.Secured.Fingerprint != want.Fingerprint ||
		connected.Secured.Trust != "first-use" || connected.Secured.Protocol != "ssl" || connected.Secured.TLSVersion != "TLSv1.3" {
		t.Errorf("secured %+v", connected.Secured)
	}
	if !bytes.Equal(connected.Confirm, sslConfirm) || connected.Address != "127.0.0.1" {
		t.Errorf("confirm % x, address %s", connected.Confirm, connected.Address)
	}
	facts := j.facts[0]
	if facts.CAVerified || facts.CAError != "DEPTH_ZERO_SELF_SIGNED_CERT" || facts.Host != "127.0.0.1" || facts.Port != s.port() || facts.Fingerprint != want.Fingerprint {
		t.Errorf("facts %+v", facts)
	}
	// The connection relays on raw system calls, TCP_NODELAY on, the echo comes back.
	socket, ok := connected.Conn.NetConn().(*edgeloop.Socket)
	if !ok {
		t.Fatalf("the server leg is a %T, not a socket the relay's loop can take", connected.Conn.NetConn())
	}
	under, ok := socket.Conn.(*rawsocket.Conn)
	if !ok {
		t.Fatalf("the server leg is a %T, not raw", socket.Conn)
	}
	raw, _ := under.SyscallConn()
	noDelay := 0
	_ = raw.Control(func(fd uintptr) {
		noDelay, _ = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
	})
	if noDelay == 0 {
		t.Error("TCP_NODELAY is off")
	}
	if _, err := connected.Conn.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	echo := make([]byte, 4)
	if _, err := io.ReadFull(connected.Conn, echo); err != nil || string(echo) != "ping" {
		t.Fatalf("echo %q %v", echo, err)
	}
}

func TestCAVerifiedNeedsTheChainAndTheTargetsName(t *testing.T) {
	ca := newCA(t)
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	cases := []struct {
		name     string
		leaf     *issued
		host     string
		roots    *x509.CertPool
		verified bool
		reason   string
	}{
		{"ip san", leafFor(t, ca, "127.0.0.1"), "127.0.0.1", roots, true, ""},
		{"dns name", leafFor(t, ca, "presenter.example"), "Presenter.Example.", roots, true, ""},
		{"a name for an ip", leafFor(t, ca, "localhost"), "127.0.0.1", roots, false, "certificate is not for 127.0.0.1"},
		{"another name", leafFor(t, ca, "presenter.example"), "other.example", roots, false, "certificate is not for other.example"},
		{"unknown ca", leafFor(t, ca, "127.0.0.1"), "127.0.0.1", x509.NewCertPool(), false, "SELF_SIGNED_CERT_IN_CHAIN"},
		{"leaf alone, unknown ca", leafFor(t, ca, "127.0.0.1"), "127.0.0.1", x509.NewCertPool(), false, "UNABLE_TO_VERIFY_LEAF_SIGNATURE"},
		{"expired", issue(t, ca, &x509.Certificate{IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotAfter: time.Now().Add(-time.Minute)}), "127.0.0.1", roots, false, "CERT_HAS_EXPIRED"},
		// issue 31: as OpenSSL's server purpose check, a certificate naming usages must name serverAuth
		{"client authentication only", issue(t, ca, &x509.Certificate{IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}), "127.0.0.1", roots, false, "UNSUPPORTED_CERTIFICATE_PURPOSE"},
		{"no extended key usage at all", issue(t, ca, &x509.Certificate{IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}), "127.0.0.1", roots, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chain := []*issued{c.leaf, ca}
			if strings.HasPrefix(c.name, "leaf alone") {
				chain = chain[:1]
			}
			s := rdpServer(t, sslConfirm, chain...)
			j := &judged{}
			connected, err := Connect(context.Background(), request(s.port(), func(r *Request) { r.Host, r.Roots = c.host, c.roots }), j.judge("ca", nil))
			if err != nil {
				t.Fatal(err)
			}
			_ = connected.Conn.Close()
			if facts := j.facts[0]; facts.CAVerified != c.verified || facts.CAError != c.reason {
				t.Errorf("facts %+v", facts)
			}
			if len(connected.Secured.Certificates) != len(chain) {
				t.Errorf("chain of %d", len(connected.Secured.Certificates))
			}
		})
	}
}

func TestTheJudgesRefusalEndsTheSession(t *testing.T) {
	s := rdpServer(t, sslConfirm, leafFor(t, nil, "127.0.0.1"))
	refusal := sessionerr.New(sessionerr.PhaseTLS, sessionerr.CodeCertificateChanged, "").WithDetail("fingerprint", "sha256:00")
	connected, err := Connect(context.Background(), request(s.port()), (&judged{}).judge("", refusal))
	if expectError(t, connected, err, "tls", "certificate-changed") != refusal {
		t.Error("not the judge's own error")
	}
}

// reply serves a server that reads the request and then does what act says.
func reply(t *testing.T, act func(net.Conn)) *server {
	return serve(t, func(conn net.Conn) {
		if readRequest(conn) {
			act(conn)
		}
	})
}

func write(data []byte) func(net.Conn) {
	return func(conn net.Conn) { _, _ = conn.Write(data) }
}

func writeAndClose(data []byte) func(net.Conn) {
	return func(conn net.Conn) { _, _ = conn.Write(data); _ = conn.Close() }
}

func stall(net.Conn) {}

func TestConfirmPhase(t *testing.T) {
	failure := pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmFailure, FailureCode: 5})
	cases := []struct {
		name           string
		act            func(net.Conn)
		requireNla     bool
		code, message  string
		detail, reason string
	}{
		{name: "not rdp", act: write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n")), code: "x224-invalid",
			reason: "reply does not start with a tpkt header (first bytes 48545450)"},
		{name: "oversized", act: write([]byte{3, 0, 0x07, 0xd0}), code: "x224-invalid", reason: "reply announces 2000 bytes, more than the 1024 allowed"},
		{name: "bad header", act: write([]byte{3, 1, 0, 19}), code: "x224-invalid", reason: "reply is not a pdu: tpkt reserved byte is 0x01, not 0x00, at offset 0"},
		{name: "trailing bytes", act: write(append(append([]byte(nil), sslConfirm...), 1, 2)), code: "x224-invalid", reason: "peer sent 2 bytes after its 19-byte reply"},
		{name: "malformed confirm", act: write(pdu.BuildLegacyConnectionRequest()), code: "x224-invalid", reason: "connection confirm tpdu code is 0xe0, expected 0xd0"},
		{name: "closed", act: func(conn net.Conn) { _ = conn.Close() }, code: "target-refused",
			message: "the presenter's computer closed the connection: the stream ended before any reply"},
		{name: "closed inside", act: writeAndClose(sslConfirm[:5]), code: "target-refused",
			message: "the presenter's computer closed the connection: the stream ended 5 bytes into the reply"},
		{name: "legacy", act: write(pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmNone})), code: "legacy-security"},
		{name: "rdp selected", act: write(pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmSuccess, SelectedProtocol: pdu.ProtocolRDP})), code: "legacy-security"},
		{name: "rdstls selected", act: write(pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmSuccess, SelectedProtocol: pdu.ProtocolRDSTLS})), code: "negotiation-failed",
			message: "the presenter chose a security protocol the gateway does not relay", detail: "selectedProtocol"},
		{name: "tls without nla", act: write(sslConfirm), requireNla: true, code: "negotiation-failed",
			message: "the presenter's computer chose plain TLS, and the gateway requires Network Level Authentication"},
		{name: "refusal", act: write(failure), code: "negotiation-failed", detail: "failureCode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := reply(t, c.act)
			connected, err := Connect(context.Background(), request(s.port(), func(r *Request) { r.RequireNla = c.requireNla }), trustAll)
			expectError(t, connected, err, "x224", c.code)
			if err.Message != c.message {
				t.Errorf("message %q", err.Message)
			}
			if c.reason != "" && err.Internal["reason"] != c.reason {
				t.Errorf("reason %q", err.Internal["reason"])
			}
			if c.detail != "" && err.Detail[c.detail] == nil {
				t.Errorf("detail %v", err.Detail)
			}
			if c.name == "refusal" && (!bytes.Equal(err.Confirm, failure) || err.Detail["failureCode"] != uint32(5)) {
				t.Errorf("a refusal carries its confirm: % x %v", err.Confirm, err.Detail)
			} else if c.name != "refusal" && err.Confirm != nil {
				t.Error("confirm on another error")
			}
		})
	}
}

func TestDeadlines(t *testing.T) {
	s := reply(t, stall)
	connected, err := Connect(context.Background(), request(s.port(), func(r *Request) { r.Timeouts.Confirm = 100 * time.Millisecond }), trustAll)
	expectError(t, connected, err, "x224", "timeout")
	if err.Message != "the presenter's computer did not confirm the connection in time" || err.Detail["phase"] != "x224" {
		t.Errorf("%+v", err)
	}
	s = reply(t, write(sslConfirm))
	connected, err = Connect(context.Background(), request(s.port(), func(r *Request) { r.Timeouts.TLS = 100 * time.Millisecond }), trustAll)
	expectError(t, connected, err, "tls", "timeout")
	if err.Message != "the TLS handshake did not finish within 100 ms" || err.Detail["phase"] != "tls" {
		t.Errorf("%+v", err)
	}
}

func TestConnectFailures(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := listener.Addr().(*net.TCPAddr).Port
	_ = listener.Close()
	connected, failure := Connect(context.Background(), request(port), trustAll)
	expectError(t, connected, failure, "connect", "target-refused")
	if failure.Detail["error"] != "ECONNREFUSED" {
		t.Errorf("%v", failure.Detail)
	}
	garbage := reply(t, func(conn net.Conn) {
		_, _ = conn.Write(sslConfirm)
		// Not a ServerHello: the client's handshake fails.
		readRequest(conn)
		_, _ = conn.Write([]byte("this is not a tls server hello at all, not even close"))
	})
	connected, failure = Connect(context.Background(), request(garbage.port()), trustAll)
	expectError(t, connected, failure, "tls", "tls-failed")
	if failure.Detail["error"] != "tls-error" || failure.Internal["reason"] == "" {
		t.Errorf("%v %v", failure.Detail, failure.Internal)
	}
}

// An abort ends the phase under way at once, with its cause when that is a session error.
func TestAbortsEndEachPhaseAtOnce(t *testing.T) {
	reason := sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeBadMessage, "the display sent data before the server connection was secured")
	cases := []struct {
		name    string
		act     func(net.Conn)
		inPhase string // abort once this phase has ended
		cause   error
		phase   string
		code    string
	}{
		{"confirm, shutdown", stall, "connect", nil, "x224", "gateway-shutdown"},
		{"confirm, reason", stall, "connect", reason, "request", "bad-message"},
		{"tls, shutdown", write(sslConfirm), "x224", nil, "tls", "gateway-shutdown"},
		{"tls, reason", write(sslConfirm), "x224", reason, "request", "bad-message"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := reply(t, c.act)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			started := time.Now()
			connected, err := Connect(ctx, request(s.port(), func(r *Request) {
				r.OnPhase = func(phase string, _ time.Duration) {
					if phase == c.inPhase {
						go func() { time.Sleep(20 * time.Millisecond); cancel(c.cause) }()
					}
				}
			}), trustAll)
			expectError(t, connected, err, c.phase, c.code)
			if c.cause != nil && err != reason {
				t.Error("not the cause itself")
			}
			if elapsed := time.Since(started); elapsed > 5*time.Second {
				t.Errorf("ended after %v, not at once", elapsed)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	connected, err := Connect(ctx, request(1), trustAll)
	expectError(t, connected, err, "connect", "gateway-shutdown")
	// A judge that is still deciding when the abort comes: the abort wins.
	s := rdpServer(t, sslConfirm, leafFor(t, nil, "127.0.0.1"))
	ctx, cancelCause := context.WithCancelCause(context.Background())
	connected, err = Connect(ctx, request(s.port()), func(context.Context, CertificateFacts) (string, *sessionerr.Error) {
		cancelCause(reason)
		return "insecure", nil
	})
	expectError(t, connected, err, "request", "bad-message")
}

func TestCheckRequest(t *testing.T) {
	cases := []struct {
		request    []byte
		requireNla bool
		code       string
		message    string
	}{
		{pdu.BuildConnectionRequest(pdu.ProtocolSSL, ""), false, "", ""},
		{pdu.BuildConnectionRequest(pdu.ProtocolHybridEx, "bob"), true, "", ""},
		{[]byte{3, 0, 0, 4}, false, "bad-message", "the display's connection request is malformed: connection request of 4 bytes is shorter than 11"},
		{pdu.BuildLegacyConnectionRequest(), false, "legacy-security", "the display asked for legacy RDP security, which the gateway does not relay"},
		{pdu.BuildConnectionRequest(pdu.ProtocolRDSTLS, ""), false, "legacy-security", "the display asked for legacy RDP security, which the gateway does not relay"},
		{pdu.BuildConnectionRequest(pdu.ProtocolSSL, ""), true, "negotiation-failed", "the gateway requires Network Level Authentication, and the display did not offer it"},
	}
	for _, c := range cases {
		err := CheckRequest(c.request, c.requireNla)
		if c.code == "" {
			if err != nil {
				t.Errorf("% x refused: %v", c.request, err)
			}
			continue
		}
		if err == nil || err.Phase != "request" || err.Code != c.code || err.Message != c.message {
			t.Errorf("% x: %v", c.request, err)
		}
	}
	if err := CheckRequest(pdu.BuildConnectionRequest(pdu.ProtocolSSL, ""), true); err.Detail["requestedProtocols"] != pdu.ProtocolSSL {
		t.Errorf("detail %v", err.Detail)
	}
	// Connect checks too, before it dials anything.
	connected, err := Connect(context.Background(), request(1, func(r *Request) { r.ConnectionRequest = pdu.BuildLegacyConnectionRequest() }), trustAll)
	expectError(t, connected, err, "request", "legacy-security")
}

func TestCanonicalAddress(t *testing.T) {
	for in, want := range map[string]string{"Presenter.Example.": "presenter.example", "[::1]": "::1", "::ffff:127.0.0.1": "127.0.0.1", " 10.0.0.1 ": "10.0.0.1"} {
		if got := canonicalAddress(in); got != want {
			t.Errorf("%q: %q", in, got)
		}
	}
}

// Node (OpenSSL's default list) still speaks RSA key exchange, which older
// Windows servers may need; Go's defaults no longer offer it.
func TestAnOlderServerWithRSAKeyExchangeOnly(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "old-presenter"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	config := &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
		MaxVersion:   tls.VersionTLS12,
		CipherSuites: []uint16{tls.TLS_RSA_WITH_AES_128_GCM_SHA256},
	}
	s := reply(t, func(conn net.Conn) {
		_, _ = conn.Write(sslConfirm)
		_ = tls.Server(conn, config).Handshake()
	})
	connected, failure := Connect(context.Background(), request(s.port()), trustAll)
	if failure != nil {
		t.Fatal(failure)
	}
	defer connected.Conn.Close()
	if connected.Secured.TLSVersion != "TLSv1.2" || connected.Secured.Cipher != "TLS_RSA_WITH_AES_128_GCM_SHA256" {
		t.Errorf("%+v", connected.Secured)
	}
	if publicKey, _ := base64.StdEncoding.DecodeString(connected.Secured.PublicKey); !bytes.Equal(publicKey, x509.MarshalPKCS1PublicKey(&key.PublicKey)) {
		t.Error("the public key is not the leaf's PKCS#1 key")
	}
}
