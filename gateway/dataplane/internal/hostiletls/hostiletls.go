// Package hostiletls is a test peer that speaks TLS 1.3 the way a hostile
// one does (issue 31): after a real handshake it sends KeyUpdate requests
// that oblige the other side to answer, and it never reads those answers,
// its receive window kept closed. crypto/tls has no API to send a
// KeyUpdate, so the handshake is Go's and the records after it are sealed
// here, from the traffic secrets Go hands its KeyLogWriter (RFC 8446 7.1,
// 7.2, 5.2). Tests only: the data plane's tests and cmd/hostile-tls-peer,
// which the TypeScript hostile-client suite drives.
package hostiletls

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"lanterna/dataplane/rawsocket"
)

// SmallReceiveBuffer is the SO_RCVBUF a hostile peer asks for: its window stays small and closes soon.
const SmallReceiveBuffer = 4096

// keyUpdateRequested is a KeyUpdate handshake message with update_requested (RFC 8446 4.6.3).
var keyUpdateRequested = []byte{24, 0, 0, 1, 1}

// UselessRun is how many KeyUpdates a Go peer takes in a row (crypto/tls's
// maxUselessRecords) before it wants a byte of data.
const UselessRun = 16

// KeyLog collects the traffic secrets of one handshake (a tls.Config's KeyLogWriter).
type KeyLog struct {
	mu      sync.Mutex
	secrets map[string][]byte
}

func (k *KeyLog) Write(line []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.secrets == nil {
		k.secrets = map[string][]byte{}
	}
	fields := strings.Fields(string(line))
	if len(fields) == 3 {
		if secret, err := hex.DecodeString(fields[2]); err == nil {
			k.secrets[fields[0]] = secret
		}
	}
	return len(line), nil
}

func (k *KeyLog) secret(label string) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if secret, ok := k.secrets[label]; ok {
		return secret, nil
	}
	return nil, fmt.Errorf("no %s in the key log", label)
}

// Sender seals TLS 1.3 records for one direction of a connection, from its
// first application traffic secret on (nothing may have been sent with
// that secret before: a Go client sends nothing after its Finished, a Go
// server with SessionTicketsDisabled neither).
type Sender struct {
	conn    net.Conn
	newHash func() hash.Hash
	keyLen  int
	secret  []byte
	aead    cipher.AEAD
	iv      []byte
	seq     uint64
}

// ClientSender writes as the client of a finished handshake; ServerSender as its server.
func ClientSender(raw net.Conn, state tls.ConnectionState, keys *KeyLog) (*Sender, error) {
	return newSender(raw, state, keys, "CLIENT_TRAFFIC_SECRET_0")
}

func ServerSender(raw net.Conn, state tls.ConnectionState, keys *KeyLog) (*Sender, error) {
	return newSender(raw, state, keys, "SERVER_TRAFFIC_SECRET_0")
}

func newSender(raw net.Conn, state tls.ConnectionState, keys *KeyLog, label string) (*Sender, error) {
	if state.Version != tls.VersionTLS13 {
		return nil, errors.New("hostiletls: the handshake did not give TLS 1.3")
	}
	s := &Sender{conn: raw}
	switch state.CipherSuite {
	case tls.TLS_AES_128_GCM_SHA256:
		s.newHash, s.keyLen = sha256.New, 16
	case tls.TLS_AES_256_GCM_SHA384:
		s.newHash, s.keyLen = sha512.New384, 32
	default:
		return nil, fmt.Errorf("hostiletls: suite %s is not one this peer seals", tls.CipherSuiteName(state.CipherSuite))
	}
	secret, err := keys.secret(label)
	if err != nil {
		return nil, err
	}
	return s, s.setSecret(secret)
}

// expandLabel is HKDF-Expand-Label with an empty context (RFC 8446 7.1).
func (s *Sender) expandLabel(secret []byte, label string, length int) ([]byte, error) {
	full := "tls13 " + label
	info := make([]byte, 0, 4+len(full))
	info = binary.BigEndian.AppendUint16(info, uint16(length))
	info = append(info, byte(len(full)))
	info = append(info, full...)
	info = append(info, 0)
	return hkdf.Expand(s.newHash, secret, string(info), length)
}

func (s *Sender) setSecret(secret []byte) error {
	key, err := s.expandLabel(secret, "key", s.keyLen)
	if err != nil {
		return err
	}
	iv, err := s.expandLabel(secret, "iv", 12)
	if err != nil {
		return err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return err
	}
	s.secret, s.aead, s.iv, s.seq = secret, aead, iv, 0
	return nil
}

// seal appends one protected record of content type kind to out.
func (s *Sender) seal(out []byte, kind byte, content []byte) []byte {
	nonce := make([]byte, 12)
	copy(nonce, s.iv)
	var seq [8]byte
	binary.BigEndian.PutUint64(seq[:], s.seq)
	for i := range seq {
		nonce[4+i] ^= seq[i]
	}
	s.seq++
	inner := append(append([]byte(nil), content...), kind)
	header := []byte{23, 3, 3, 0, 0}
	binary.BigEndian.PutUint16(header[3:], uint16(len(inner)+s.aead.Overhead()))
	out = append(out, header...)
	return s.aead.Seal(out, nonce, inner, header)
}

// AppendKeyUpdate appends a KeyUpdate request and moves to the next secret, as the peer will.
func (s *Sender) AppendKeyUpdate(out []byte) ([]byte, error) {
	out = s.seal(out, 22, keyUpdateRequested)
	next, err := s.expandLabel(s.secret, "traffic upd", s.newHash().Size())
	if err != nil {
		return out, err
	}
	return out, s.setSecret(next)
}

// AppendData appends application data in one record.
func (s *Sender) AppendData(out, data []byte) []byte { return s.seal(out, 23, data) }

// Write sends records (built with the Append methods) as they are.
func (s *Sender) Write(records []byte) (int, error) { return s.conn.Write(records) }

// Flood sends KeyUpdate requests, UselessRun at a time each followed by one
// byte of next() as data, until the peer takes nothing for stalledAfter
// (true: it stopped reading, its answers unsent), until it cuts the
// connection (the error), or until (false).
func (s *Sender) Flood(next func() byte, stalledAfter time.Duration, until time.Time) (runs int, stalled bool, err error) {
	batch := make([]byte, 0, 64<<10)
	for runs = 0; time.Now().Before(until); {
		batch = batch[:0]
		// a few runs per write: the peer's socket takes them in one go
		for range 32 {
			for range UselessRun {
				if batch, err = s.AppendKeyUpdate(batch); err != nil {
					return runs, false, err
				}
			}
			batch = s.AppendData(batch, []byte{next()})
			runs++
		}
		_ = s.conn.SetWriteDeadline(time.Now().Add(stalledAfter))
		if _, err := s.conn.Write(batch); err != nil {
			if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
				return runs, false, err
			}
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				return runs, true, nil
			}
			return runs, false, err
		}
	}
	return runs, false, nil
}

// SetReceiveBuffer asks for a small receive buffer (before connect or listen, so the window is small from the start).
func SetReceiveBuffer(_, _ string, conn syscall.RawConn) error {
	var optErr error
	err := conn.Control(func(fd uintptr) {
		optErr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, SmallReceiveBuffer)
	})
	if err != nil {
		return err
	}
	return optErr
}

// tcpEstablished is Linux's TCP_ESTABLISHED (tcp_states.h), tcp_info's first byte.
const tcpEstablished = 1

// Established says whether the kernel still holds conn as established:
// false once the peer reset or closed it (read without reading the socket,
// whose unread data stays where it is).
func Established(conn net.Conn) bool {
	_, raw, ok := rawsocket.Raw(conn)
	if !ok {
		return false
	}
	state := byte(0)
	_ = raw.Control(func(fd uintptr) {
		var info [232]byte
		size := uint32(len(info))
		_, _, errno := syscall.Syscall6(syscall.SYS_GETSOCKOPT, fd, syscall.IPPROTO_TCP, syscall.TCP_INFO,
			uintptr(unsafe.Pointer(&info[0])), uintptr(unsafe.Pointer(&size)), 0)
		if errno == 0 {
			state = info[0]
		}
	})
	return state == tcpEstablished
}

// WaitCut waits until the peer cuts conn or within passes: how long it took, and whether it came.
func WaitCut(conn net.Conn, within time.Duration) (time.Duration, bool) {
	started := time.Now()
	for time.Since(started) < within {
		if !Established(conn) {
			return time.Since(started), true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(started), false
}

// Request is an HTTP request head, the last header left open so that its
// value can go on a byte at a time (HeaderBytes gives them).
func Request(host, path string, headers map[string]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", path, host)
	for name, value := range headers {
		fmt.Fprintf(&b, "%s: %s\r\n", name, value)
	}
	b.WriteString("X-Trickle: ")
	return b.Bytes()
}

// HeaderBytes gives the trickled header's value: one letter after another.
func HeaderBytes() func() byte { return func() byte { return 'a' } }
