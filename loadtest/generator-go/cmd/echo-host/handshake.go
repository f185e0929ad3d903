package main

import (
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/lanterna/loadtest-generator/internal/loadwire"
	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/pdu"
)

const maxRequestBytes = 1024

var confirmSSL = loadwire.ConfirmSSL()

// answerConnectionRequest reads the client's X.224 Connection Request (at most
// maxRequestBytes), confirms PROTOCOL_SSL, and returns what arrived after the
// request. The caller sets the deadline.
func answerConnectionRequest(stream io.ReadWriter) ([]byte, error) {
	reader := pdu.FirstPduReader{Max: maxRequestBytes}
	buf := make([]byte, maxRequestBytes)
	for {
		n, err := stream.Read(buf)
		if n > 0 {
			request, rest, done, pushErr := reader.Push(buf[:n])
			if pushErr != nil {
				return nil, pushErr
			}
			if done {
				requested, parseErr := pdu.ParseConnectionRequest(request)
				if parseErr != nil {
					return nil, parseErr
				}
				if requested&pdu.ProtocolSSL == 0 {
					return nil, fmt.Errorf("client did not offer tls (requested %d)", requested)
				}
				if _, err := stream.Write(confirmSSL); err != nil {
					return nil, err
				}
				return rest, nil
			}
		}
		if err != nil {
			return nil, errors.Join(errors.New("closed before its connection request"), err)
		}
	}
}

// prefixedConn replays bytes read past the Connection Request (a client that
// sent its TLS ClientHello without waiting for the Confirm) before the socket's.
type prefixedConn struct {
	net.Conn
	prefix []byte
}

func (p *prefixedConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// handshakeConsumed: no bytes of the Connection Request's read are left to
// replay, so the socket alone holds what comes next (the event loop reads
// the descriptor itself).
func handshakeConsumed(under *edgeloop.Socket) bool {
	prefixed, ok := under.Conn.(*prefixedConn)
	return !ok || len(prefixed.prefix) == 0
}
