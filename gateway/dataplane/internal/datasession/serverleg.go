package datasession

import (
	"context"
	"time"

	"lanterna/dataplane/edgeloop"
	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/internal/targetconn"
	"lanterna/dataplane/pdu"
)

// serverLeg is the session's leg to the presenter's computer: a TLS
// connection made by targetconn, or (browser) a presenter page's socket.
// conn is set by the handshake before the state moves to relaying (which
// publishes it); socket and framer by handOver before looped is set. From
// there the server's reader owns framer and readAtNs (the loop's callback,
// or a presenter page's reader).
type serverLeg struct {
	// browser: Node's grant is a browser source's (the leg is its page, presenterjoin.go)
	browser bool
	conn    *targetconn.Connected
	// presenter: the page's leg, once taken (presenterjoin.go)
	presenter *presenterLeg
	// socket: the event loop's hold on the TLS connection's socket (loop.go)
	socket *edgeloop.Socket
	// framer cuts the server's bytes into whole PDUs; emit is its output,
	// sendBatch bound once (a method value made at each Push would be allocated per read)
	framer *pdu.Framer
	emit   func(batch []byte, pdus int)
	// readAtNs: when the bytes being framed were read (the relay latency's start)
	readAtNs int64
}

// close ends the connection to the server, if one was made.
func (l *serverLeg) close() {
	if l.conn != nil && l.conn.Conn != nil {
		_ = l.conn.Conn.NetConn().Close()
	}
}

// connectTarget is the server leg to the grant's target: Node resolves and
// allows its address, targetconn makes the leg, Node judges the certificate.
func (s *session) connectTarget(ctx context.Context, request []byte) (*targetconn.Connected, *sessionerr.Error) {
	e := s.engine
	options := e.options
	resolveCtx, resolveCancel := context.WithTimeout(ctx, s.ms(options.Timeouts.ConnectMs))
	target, failure := e.node.Resolve(resolveCtx, rpc.ResolveRequest{SessionID: s.id})
	resolveCancel()
	if failure != nil {
		return nil, failure
	}
	return targetconn.Connect(ctx, targetconn.Request{
		Host: target.Host, Port: target.Port, Address: target.Address, ConnectionRequest: request,
		RequireNla: options.RequireNla,
		Timeouts: targetconn.Timeouts{
			Connect: s.ms(options.Timeouts.ConnectMs), Confirm: s.ms(options.Timeouts.ConfirmMs), TLS: s.ms(options.Timeouts.TLSMs),
			Write: s.ms(options.Timeouts.WriteMs),
		},
		Roots: options.Roots,
		OnPhase: func(phase string, d time.Duration) {
			e.node.Notify(rpc.OpPhase, rpc.Phase{Phase: phase, Ms: float64(d) / float64(time.Millisecond)})
		},
	}, s.judge)
}

// judge asks Node's certificate policy.
func (s *session) judge(ctx context.Context, facts targetconn.CertificateFacts) (string, *sessionerr.Error) {
	ctx, cancel := context.WithTimeout(ctx, s.ms(s.engine.options.Timeouts.TLSMs))
	defer cancel()
	return s.engine.node.Certificate(ctx, rpc.CertificateRequest{
		SessionID: s.id, Host: facts.Host, Port: facts.Port, Address: facts.Address,
		Fingerprint: facts.Fingerprint, CAVerified: facts.CAVerified, CAError: facts.CAError,
	})
}
