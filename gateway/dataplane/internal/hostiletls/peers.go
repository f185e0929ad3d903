package hostiletls

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"time"

	"lanterna/dataplane/pdu"
)

// Client is a hostile TLS client connected to a server: its raw socket
// (SO_RCVBUF small), the TLS connection whose handshake it made, and the
// sender that writes its records from then on.
type Client struct {
	Raw    net.Conn
	TLS    *tls.Conn
	Sender *Sender
}

// Dial connects from localAddress ("" for any) with a small receive
// buffer and makes the TLS 1.3 handshake (no verification: a test peer).
func Dial(ctx context.Context, address, localAddress string) (*Client, error) {
	dialer := net.Dialer{Control: SetReceiveBuffer}
	if localAddress != "" {
		dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(localAddress)}
	}
	raw, err := dialer.DialContext(ctx, "tcp", address)
	if err != nil {
		return nil, err
	}
	keys := &KeyLog{}
	conn := tls.Client(raw, &tls.Config{
		InsecureSkipVerify: true, //nolint:gosec // a test peer
		MinVersion:         tls.VersionTLS13, NextProtos: []string{"http/1.1"}, KeyLogWriter: keys,
	})
	if err := conn.HandshakeContext(ctx); err != nil {
		_ = raw.Close()
		return nil, err
	}
	sender, err := ClientSender(raw, conn.ConnectionState(), keys)
	if err != nil {
		_ = raw.Close()
		return nil, err
	}
	return &Client{Raw: raw, TLS: conn, Sender: sender}, nil
}

// Upgrade asks for a WebSocket on path (through the sender's records) and
// reads the answer (through TLS): the status.
func (c *Client) Upgrade(host, path, subprotocol string) (int, error) {
	head := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: %s\r\n\r\n", path, host, subprotocol)
	if _, err := c.Sender.Write(c.Sender.AppendData(nil, []byte(head))); err != nil {
		return 0, err
	}
	_ = c.TLS.SetReadDeadline(time.Now().Add(5 * time.Second))
	response, err := http.ReadResponse(bufio.NewReaderSize(c.TLS, 512), nil)
	if err != nil {
		return 0, err
	}
	_ = c.TLS.SetReadDeadline(time.Time{})
	return response.StatusCode, nil
}

// FrameBytes gives a WebSocket binary message of 16,383 bytes (under the
// 16 KiB allowed before open), masked with a zero key, a byte at a time.
func FrameBytes() func() byte {
	frame := []byte{0x82, 0x80 | 126, 0x3f, 0xff, 0, 0, 0, 0}
	i := 0
	return func() byte {
		if i < len(frame) {
			i++
			return frame[i-1]
		}
		return 'a'
	}
}

// PduBytes gives TPKT PDUs of 4,096 bytes (X.224 data), one after another, a byte at a time.
func PduBytes() func() byte {
	const size = 4096
	head := []byte{3, 0, size >> 8, size & 0xff, 2, 0xf0, 0x80}
	i := 0
	return func() byte {
		at := i % size
		i++
		if at < len(head) {
			return head[at]
		}
		return byte(at)
	}
}

// Server is a hostile RDP server: it confirms TLS security, makes the TLS
// 1.3 handshake, and then only writes (ServeOne's flood).
type Server struct {
	Listener net.Listener
	config   *tls.Config
}

// Listen listens on 127.0.0.1:port with small receive buffers.
func Listen(port int) (*Server, error) {
	config := net.ListenConfig{Control: SetReceiveBuffer}
	listener, err := config.Listen(context.Background(), "tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, err
	}
	certificate, err := selfSigned()
	if err != nil {
		_ = listener.Close()
		return nil, err
	}
	return &Server{Listener: listener, config: &tls.Config{
		Certificates: []tls.Certificate{certificate}, MinVersion: tls.VersionTLS13,
		// no NewSessionTicket: the first record under the traffic secret is the sender's
		SessionTicketsDisabled: true,
	}}, nil
}

// Port is the port the server listens on.
func (s *Server) Port() int { return s.Listener.Addr().(*net.TCPAddr).Port }

// Accept takes the gateway's connection through the Connection Request,
// the Confirm (TLS) and the TLS handshake: the raw socket and its sender.
func (s *Server) Accept(ctx context.Context) (net.Conn, *Sender, error) {
	raw, err := s.Listener.Accept()
	if err != nil {
		return nil, nil, err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	_ = raw.SetDeadline(deadline)
	head := make([]byte, 4)
	if _, err := io.ReadFull(raw, head); err != nil {
		_ = raw.Close()
		return nil, nil, err
	}
	rest := make([]byte, int(head[2])<<8|int(head[3])-4)
	if _, err := io.ReadFull(raw, rest); err != nil {
		_ = raw.Close()
		return nil, nil, err
	}
	confirm := pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmSuccess, SelectedProtocol: pdu.ProtocolSSL})
	if _, err := raw.Write(confirm); err != nil {
		_ = raw.Close()
		return nil, nil, err
	}
	keys := &KeyLog{}
	config := s.config.Clone()
	config.KeyLogWriter = keys
	conn := tls.Server(raw, config)
	if err := conn.HandshakeContext(ctx); err != nil {
		_ = raw.Close()
		return nil, nil, err
	}
	_ = raw.SetDeadline(time.Time{})
	sender, err := ServerSender(raw, conn.ConnectionState(), keys)
	if err != nil {
		_ = raw.Close()
		return nil, nil, err
	}
	return raw, sender, nil
}

func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hostile"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// ErrNotStalled: the flood ran its course and the peer took everything.
var ErrNotStalled = errors.New("hostiletls: the peer kept reading")
