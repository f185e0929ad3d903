package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"lanterna/dataplane/rawsocket"
)

// wsConn is the hot path's WebSocket client (RFC 6455), by hand rather than
// gorilla's: requests go out as frames masked once at set-up and written with
// one write each, and responses are parsed in place from one reused buffer,
// so a round trip allocates nothing. Server frames are unmasked (RFC 6455
// 5.1). Concurrent writes are safe: each frame is one Write, and net.Conn and
// tls.Conn serialise whole Writes.
type wsConn struct {
	conn net.Conn
	raw  net.Conn
	key  [4]byte
	buf  []byte
	r, w int
}

const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xa
	// the largest frame the load test expects (KW v2.2 answers are under 2 KB; throughput is not this path's)
	maxFramePayload = 1 << 20
	readBufferBytes = 2048
)

var errFramePayloadTooLarge = errors.New("websocket frame over 1 MiB")

// dialWebSocket opens ws:// or wss:// (verified against trust: see trust.go)
// and performs the opening handshake.
func dialWebSocket(ctx context.Context, address, localAddress, subprotocol string, trust *tls.Config, timeout time.Duration) (*wsConn, error) {
	target, err := url.Parse(address)
	if err != nil {
		return nil, err
	}
	netDialer := &net.Dialer{Timeout: timeout}
	if localAddress != "" {
		netDialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(localAddress)}
	}
	host := target.Host
	if target.Port() == "" {
		host = net.JoinHostPort(target.Hostname(), map[string]string{"wss": "443"}[target.Scheme]+map[string]string{"ws": "80"}[target.Scheme])
	}
	raw, err := netDialer.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, err
	}
	// the hot path's reads and writes without the scheduler's hand-offs (package rawsocket)
	raw = rawsocket.Wrap(raw)
	deadline := time.Now().Add(timeout)
	if until, ok := ctx.Deadline(); ok && until.Before(deadline) {
		deadline = until
	}
	_ = raw.SetDeadline(deadline)
	c := &wsConn{conn: raw, raw: raw, buf: make([]byte, readBufferBytes)}
	if target.Scheme == "wss" {
		config := trust.Clone()
		config.ServerName = target.Hostname()
		secure := tls.Client(raw, config)
		if err := secure.HandshakeContext(ctx); err != nil {
			_ = raw.Close()
			return nil, fmt.Errorf("tls handshake: %w", err)
		}
		c.conn = secure
	}
	if _, err := rand.Read(c.key[:]); err != nil {
		_ = raw.Close()
		return nil, err
	}
	if err := c.handshake(target, subprotocol); err != nil {
		_ = raw.Close()
		return nil, err
	}
	_ = raw.SetDeadline(time.Time{})
	return c, nil
}

func (c *wsConn) handshake(target *url.URL, subprotocol string) error {
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	request := "GET " + target.RequestURI() + " HTTP/1.1\r\nHost: " + target.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " +
		base64.StdEncoding.EncodeToString(nonce[:]) + "\r\n"
	if subprotocol != "" {
		request += "Sec-WebSocket-Protocol: " + subprotocol + "\r\n"
	}
	if _, err := c.conn.Write([]byte(request + "\r\n")); err != nil {
		return err
	}
	for {
		if end := bytes.Index(c.buf[:c.w], []byte("\r\n\r\n")); end >= 0 {
			statusLine, _, _ := bytes.Cut(c.buf[:end], []byte("\r\n"))
			if !bytes.HasPrefix(statusLine, []byte("HTTP/1.1 101")) {
				return fmt.Errorf("upgrade refused with %s", bytes.TrimPrefix(statusLine, []byte("HTTP/1.1 ")))
			}
			// whatever followed the response is the first frames' bytes
			c.r = end + 4
			return nil
		}
		if c.w == len(c.buf) {
			return errors.New("upgrade response over 2 KB")
		}
		n, err := c.conn.Read(c.buf[c.w:])
		if err != nil {
			return fmt.Errorf("upgrade: %w", err)
		}
		c.w += n
	}
}

// maskedFrame builds one whole client frame (FIN set), masked with the connection's key.
func (c *wsConn) maskedFrame(opcode byte, payload []byte) []byte {
	frame := make([]byte, 0, 14+len(payload))
	frame = append(frame, 0x80|opcode)
	switch n := len(payload); {
	case n < 126:
		frame = append(frame, 0x80|byte(n))
	case n <= 0xffff:
		frame = append(frame, 0x80|126, byte(n>>8), byte(n))
	default:
		frame = append(frame, 0x80|127)
		frame = binary.BigEndian.AppendUint64(frame, uint64(n))
	}
	frame = append(frame, c.key[:]...)
	for i, b := range payload {
		frame = append(frame, b^c.key[i&3])
	}
	return frame
}

// writeFrame sends one frame in one write (set-up and control traffic; the
// request frame is built once and written with writeRaw).
func (c *wsConn) writeFrame(opcode byte, payload []byte) error {
	_, err := c.conn.Write(c.maskedFrame(opcode, payload))
	return err
}

func (c *wsConn) writeRaw(frame []byte) error {
	_, err := c.conn.Write(frame)
	return err
}

// nextFrame returns the next whole frame; payload is valid until the next call.
func (c *wsConn) nextFrame() (opcode byte, fin bool, payload []byte, err error) {
	for {
		if available := c.w - c.r; available >= 2 {
			head := c.buf[c.r:c.w]
			if head[1]&0x80 != 0 {
				return 0, false, nil, errors.New("masked frame from the server")
			}
			length, headerLen := int(head[1]&0x7f), 2
			switch length {
			case 126:
				headerLen = 4
				if available >= headerLen {
					length = int(binary.BigEndian.Uint16(head[2:4]))
				}
			case 127:
				headerLen = 10
				if available >= headerLen {
					long := binary.BigEndian.Uint64(head[2:10])
					if long > maxFramePayload {
						return 0, false, nil, errFramePayloadTooLarge
					}
					length = int(long)
				}
			}
			if available >= headerLen {
				total := headerLen + length
				if available >= total {
					payload = head[headerLen:total]
					c.r += total
					return head[0] & 0x0f, head[0]&0x80 != 0, payload, nil
				}
				if total > len(c.buf) {
					grown := make([]byte, total)
					c.w = copy(grown, head)
					c.r = 0
					c.buf = grown
				}
			}
		}
		if c.r == c.w {
			c.r, c.w = 0, 0
		} else if c.w == len(c.buf) {
			c.w = copy(c.buf, c.buf[c.r:c.w])
			c.r = 0
		}
		n, err := c.conn.Read(c.buf[c.w:])
		if err != nil {
			return 0, false, nil, err
		}
		c.w += n
	}
}

// nextMessage reads data frames, answering pings, until a whole text message
// or a binary frame arrives (binary payloads are handed over frame by frame:
// the callers count PDUs across frames).
func (c *wsConn) nextMessage() (opcode byte, fin bool, payload []byte, err error) {
	for {
		opcode, fin, payload, err = c.nextFrame()
		if err != nil {
			return 0, false, nil, err
		}
		switch opcode {
		case opPing:
			if err := c.writeFrame(opPong, payload); err != nil {
				return 0, false, nil, err
			}
		case opPong:
		case opClose:
			code := 1005
			if len(payload) >= 2 {
				code = int(binary.BigEndian.Uint16(payload))
			}
			return 0, false, nil, fmt.Errorf("websocket closed (%d %s)", code, payload[min(2, len(payload)):])
		case opText:
			if !fin {
				return 0, false, nil, errors.New("fragmented text message")
			}
			return opcode, fin, payload, nil
		case opBinary, opContinuation:
			return opBinary, fin, payload, nil
		default:
			return 0, false, nil, fmt.Errorf("websocket opcode %d", opcode)
		}
	}
}

// closeGracefully sends a close frame and drops the socket a moment later.
func (c *wsConn) closeGracefully(linger time.Duration) {
	_ = c.raw.SetWriteDeadline(time.Now().Add(linger))
	_ = c.writeFrame(opClose, []byte{0x03, 0xe8})
	time.AfterFunc(linger, func() { _ = c.raw.Close() })
}
