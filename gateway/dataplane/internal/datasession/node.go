package datasession

import (
	"context"
	"strconv"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
)

// RPCNode asks Node over the RPC stream. A refusal is the session's error as
// Node sent it; no answer (the deadline, a closed stream) is internal.
type RPCNode struct {
	Conn *rpc.Conn
	// OnNotifyError hears of a notification that could not be written.
	OnNotifyError func(op string, err error)
}

func (n RPCNode) call(ctx context.Context, op, phase string, request, result any) *sessionerr.Error {
	refusal, err := n.Conn.Call(ctx, op, request, result)
	if err != nil {
		return sessionerr.New(phase, sessionerr.CodeInternal, "").WithInternal("error", "no "+op+" answer from node: "+err.Error())
	}
	if refusal != nil {
		return &sessionerr.Error{Phase: refusal.Phase, Code: refusal.Code, Message: refusal.Message, Detail: nonNil(refusal.Detail), Internal: map[string]any{}}
	}
	return nil
}

// Open asks the broker for the session.
func (n RPCNode) Open(ctx context.Context, request rpc.OpenRequest) (rpc.OpenAnswer, *sessionerr.Error) {
	var answer rpc.OpenAnswer
	return answer, n.call(ctx, rpc.OpOpen, sessionerr.PhaseOpen, request, &answer)
}

// Resolve asks for the grant's target and its allowed address.
func (n RPCNode) Resolve(ctx context.Context, request rpc.ResolveRequest) (rpc.ResolveAnswer, *sessionerr.Error) {
	var answer rpc.ResolveAnswer
	return answer, n.call(ctx, rpc.OpResolve, sessionerr.PhaseConnect, request, &answer)
}

// Certificate asks the certificate policy.
func (n RPCNode) Certificate(ctx context.Context, request rpc.CertificateRequest) (string, *sessionerr.Error) {
	var answer rpc.CertificateAnswer
	failure := n.call(ctx, rpc.OpCertificate, sessionerr.PhaseTLS, request, &answer)
	return answer.Trust, failure
}

// Present asks Node to judge a presenter page's first message.
func (n RPCNode) Present(ctx context.Context, request rpc.PresentRequest) (rpc.PresentAnswer, *sessionerr.Error) {
	var answer rpc.PresentAnswer
	return answer, n.call(ctx, rpc.OpPresent, sessionerr.PhaseOpen, request, &answer)
}

// Notify sends a notification, reporting a failure to write it.
func (n RPCNode) Notify(op string, params any) {
	if err := n.Conn.Notify(op, params); err != nil && n.OnNotifyError != nil {
		n.OnNotifyError(op, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
