package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lanterna/loadtest-generator/internal/loadwire"
	"lanterna/dataplane/pdu"
)

// From @lanterna/protocol: buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: 'loadtest' }).
const connectionRequestSSL = "0300002e29e00000000000436f6f6b69653a206d737473686173683d6c6f6164746573740d0a0100080001000000"

var (
	certOnce    sync.Once
	testCert    tls.Certificate
	testCertPem string
)

func startServer(t *testing.T, options echoOptions) (*echoServer, string) {
	t.Helper()
	certOnce.Do(func() {
		var err error
		if testCert, testCertPem, err = loopbackCertificate("lanterna-loadtest-echo"); err != nil {
			t.Fatal(err)
		}
	})
	server, err := newEchoServer(options, testCert)
	if err != nil {
		t.Fatal(err)
	}
	port, err := server.listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go server.serve()
	t.Cleanup(server.close)
	return server, net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

type recordingCache struct {
	mu   sync.Mutex
	puts int
}

func (c *recordingCache) Get(string) (*tls.ClientSessionState, bool) { return nil, false }
func (c *recordingCache) Put(_ string, state *tls.ClientSessionState) {
	if state != nil {
		c.mu.Lock()
		c.puts++
		c.mu.Unlock()
	}
}
func (c *recordingCache) count() int { c.mu.Lock(); defer c.mu.Unlock(); return c.puts }

// clientConfig trusts only the echo host's certificate and checks 127.0.0.1 against its IP SAN.
func clientConfig(t *testing.T, cache tls.ClientSessionCache) *tls.Config {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(testCertPem)) {
		t.Fatal("no certificate in the pem")
	}
	return &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", ClientSessionCache: cache}
}

func negotiate(t *testing.T, stream io.ReadWriter) {
	t.Helper()
	request, _ := hex.DecodeString(connectionRequestSSL)
	if _, err := stream.Write(request); err != nil {
		t.Fatal(err)
	}
	reader := pdu.FirstPduReader{Max: 1024}
	buf := make([]byte, 1024)
	for {
		n, err := stream.Read(buf)
		if err != nil {
			t.Fatalf("confirm: %v", err)
		}
		confirm, _, done, err := reader.Push(buf[:n])
		if err != nil {
			t.Fatal(err)
		}
		if done {
			if err := loadwire.ExpectTLSConfirm(confirm, "echo host"); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
}

// connect speaks the handshake as the gateway (x224-then-tls) or websockify (tls-first) would.
func connect(t *testing.T, address, handshake string, cache tls.ClientSessionCache) *tls.Conn {
	t.Helper()
	raw, err := net.DialTimeout("tcp", address, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = raw.Close() })
	_ = raw.SetDeadline(time.Now().Add(10 * time.Second))
	if handshake == handshakeTLSFirst {
		secure := tls.Client(raw, clientConfig(t, cache))
		negotiate(t, secure)
		return secure
	}
	negotiate(t, raw)
	secure := tls.Client(raw, clientConfig(t, cache))
	if err := secure.Handshake(); err != nil {
		t.Fatal(err)
	}
	return secure
}

func TestEchoesPdusByteForByteAfterEitherHandshake(t *testing.T) {
	for _, handshake := range []string{handshakeX224ThenTLS, handshakeTLSFirst} {
		server, address := startServer(t, echoOptions{handshake: handshake, sessionTickets: true})
		secure := connect(t, address, handshake, nil)
		sent := bytes.Join([][]byte{tpkt(t, 90), tpkt(t, 7), tpkt(t, 2000)}, nil)
		for _, part := range [][]byte{sent[:50], sent[50:]} {
			if _, err := secure.Write(part); err != nil {
				t.Fatal(err)
			}
		}
		got := make([]byte, len(sent))
		if _, err := io.ReadFull(secure, got); err != nil || !bytes.Equal(got, sent) {
			t.Fatalf("%s: echo differs (%v)", handshake, err)
		}
		if n := server.openConnections(); n != 1 {
			t.Fatalf("%s: %d open connections", handshake, n)
		}
	}
}

func TestWithoutSessionTicketsSpeaksTLS12AndSendsNone(t *testing.T) {
	_, address := startServer(t, echoOptions{handshake: handshakeX224ThenTLS, replyBytes: 1669})
	cache := &recordingCache{}
	secure := connect(t, address, handshakeX224ThenTLS, cache)
	if _, err := secure.Write(tpkt(t, 25)); err != nil {
		t.Fatal(err)
	}
	reply := make([]byte, 1669)
	if _, err := io.ReadFull(secure, reply); err != nil || !bytes.Equal(reply, tpkt(t, 1669)) {
		t.Fatalf("reply: %v", err)
	}
	if version := secure.ConnectionState().Version; version != tls.VersionTLS12 {
		t.Fatalf("version %x", version)
	}
	if cache.count() != 0 {
		t.Fatal("a session ticket came")
	}
}

func TestWithSessionTicketsSendsThemOnTLS13(t *testing.T) {
	_, address := startServer(t, echoOptions{handshake: handshakeX224ThenTLS, sessionTickets: true})
	cache := &recordingCache{}
	secure := connect(t, address, handshakeX224ThenTLS, cache)
	// TLS 1.3 tickets arrive after the handshake: read an echo past them
	if _, err := secure.Write(tpkt(t, 90)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(secure, make([]byte, 90)); err != nil {
		t.Fatal(err)
	}
	if version := secure.ConnectionState().Version; version != tls.VersionTLS13 {
		t.Fatalf("version %x", version)
	}
	if cache.count() == 0 {
		t.Fatal("no session ticket")
	}
}

func TestStreamModeKeepsSendingWholePdus(t *testing.T) {
	_, address := startServer(t, echoOptions{handshake: handshakeX224ThenTLS, sessionTickets: true, streamPduBytes: 16_000})
	secure := connect(t, address, handshakeX224ThenTLS, nil)
	data := make([]byte, 16_000*60)
	if _, err := io.ReadFull(secure, data); err != nil {
		t.Fatal(err)
	}
	var counter pdu.StreamCounter
	if n, err := counter.Push(data); err != nil || n != 60 {
		t.Fatalf("%d pdus, %v", n, err)
	}
}

func TestAClientThatOffersNoTLSIsClosedAndCloseEndsConnections(t *testing.T) {
	server, address := startServer(t, echoOptions{handshake: handshakeX224ThenTLS, sessionTickets: true})
	raw, err := net.Dial("tcp", address)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	request, _ := hex.DecodeString(connectionRequestSSL)
	request[len(request)-4] = 0 // requestedProtocols: standard RDP security
	_, _ = raw.Write(request)
	_ = raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := raw.Read(make([]byte, 64)); err != io.EOF {
		t.Fatalf("read %d bytes, %v: want the connection closed", n, err)
	}
	secure := connect(t, address, handshakeX224ThenTLS, nil)
	server.close()
	if _, err := secure.Read(make([]byte, 1)); err == nil {
		t.Fatal("a connection outlived close")
	}
}
