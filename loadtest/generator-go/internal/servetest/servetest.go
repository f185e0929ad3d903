// Package servetest gives the generator's tests the server side of a
// connection: a self-signed certificate and an accept loop.
package servetest

import (
	"crypto/tls"
	"net"
	"net/http/httptest"
	"testing"
)

// SelfSigned is httptest's self-signed certificate (clients skip
// verification, as against the echo host).
func SelfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	server := httptest.NewUnstartedServer(nil)
	server.StartTLS() // only for its certificate
	defer server.Close()
	return server.TLS.Certificates[0]
}

// EachConn runs handle on each connection listener accepts, closing it
// after, until the listener closes.
func EachConn(listener net.Listener, handle func(net.Conn)) {
	for {
		conn, err := listener.Accept()
		if err != nil {
			return
		}
		go func() { defer conn.Close(); handle(conn) }()
	}
}
