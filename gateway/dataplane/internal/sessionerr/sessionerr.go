// Package sessionerr is the data plane's one error type for a session's end:
// a phase, a kiosk-protocol code (protocol/src/sessionErrors.ts), a message a
// person can act on, what the display may see (Detail) and what only the
// gateway's log may see (Internal). It mirrors gateway/src/session/sessionError.ts;
// the default sentences and close codes stay in the table Node sends with
// `configure`, so this package holds only the names.
package sessionerr

import (
	"context"
	"errors"
	"fmt"
)

// Phases of a session, as docs/kiosk-protocol.md names them.
const (
	PhaseHello   = "hello"
	PhaseOpen    = "open"
	PhaseRequest = "request"
	PhaseConnect = "connect"
	PhaseX224    = "x224"
	PhaseTLS     = "tls"
	PhaseRelay   = "relay"
)

// Phases lists every phase in the protocol document's order.
var Phases = []string{PhaseHello, PhaseOpen, PhaseRequest, PhaseConnect, PhaseX224, PhaseTLS, PhaseRelay}

// Codes of the kiosk protocol's error table (protocol/src/sessionErrors.ts).
const (
	CodeBadMessage           = "bad-message"
	CodeUnauthorized         = "unauthorized"
	CodeTargetForbidden      = "target-forbidden"
	CodeUnknownSession       = "unknown-session"
	CodeTimeout              = "timeout"
	CodeReplaced             = "replaced"
	CodePduInvalid           = "pdu-invalid"
	CodePduTooLarge          = "pdu-too-large"
	CodeTargetUnreachable    = "target-unreachable"
	CodeTargetRefused        = "target-refused"
	CodeX224Invalid          = "x224-invalid"
	CodeNegotiationFailed    = "negotiation-failed"
	CodeLegacySecurity       = "legacy-security"
	CodeTLSFailed            = "tls-failed"
	CodeCertificateUntrusted = "certificate-untrusted"
	CodeCertificateChanged   = "certificate-changed"
	CodeServerError          = "server-error"
	CodePeerNotReading       = "peer-not-reading"
	CodeGatewayBusy          = "gateway-busy"
	CodeRateLimited          = "rate-limited"
	CodeGatewayShutdown      = "gateway-shutdown"
	CodeInternal             = "internal"
)

// Codes lists every code in the table's order.
var Codes = []string{
	CodeBadMessage, CodeUnauthorized, CodeTargetForbidden, CodeUnknownSession, CodeTimeout, CodeReplaced,
	CodePduInvalid, CodePduTooLarge, CodeTargetUnreachable, CodeTargetRefused, CodeX224Invalid,
	CodeNegotiationFailed, CodeLegacySecurity, CodeTLSFailed, CodeCertificateUntrusted, CodeCertificateChanged,
	CodeServerError, CodePeerNotReading, CodeGatewayBusy, CodeRateLimited, CodeGatewayShutdown, CodeInternal,
}

// Error ends a session. Detail and Internal are never nil once made by New.
type Error struct {
	Phase string
	Code  string
	// Message is empty for the code's default message, which whoever sends
	// the error fills in from the table Node gives with `configure`.
	Message string
	// Detail is sent to the display with the error: only what a person there may act on.
	Detail map[string]any
	// Internal is for the gateway's log only (addresses, what a non-RDP server sent).
	Internal map[string]any
	// Confirm is set only for a server's RDP_NEG_FAILURE: the Connection
	// Confirm, forwarded to the display before the error so its RDP client
	// can show its own words too.
	Confirm []byte
}

// New makes an error with empty Detail and Internal; an empty message means the code's default.
func New(phase, code, message string) *Error {
	return &Error{Phase: phase, Code: code, Message: message, Detail: map[string]any{}, Internal: map[string]any{}}
}

// Error reads "phase code: message" (the code alone when the message is the default).
func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%s %s", e.Phase, e.Code)
	}
	return fmt.Sprintf("%s %s: %s", e.Phase, e.Code, e.Message)
}

// Aborted is what a phase cancelled through ctx ends with: ctx's cause when
// that is a session's error (the display broke its silence, say), otherwise
// the gateway's shutdown in that phase. The server leg (targetconn) and a
// presenter's leg (datasession) are cancelled alike.
func Aborted(ctx context.Context, phase string) *Error {
	var reason *Error
	if errors.As(context.Cause(ctx), &reason) {
		return reason
	}
	return New(phase, CodeGatewayShutdown, "")
}

// WithDetail sets one field the display is shown; returns e for chaining.
func (e *Error) WithDetail(key string, value any) *Error {
	if e.Detail == nil {
		e.Detail = map[string]any{}
	}
	e.Detail[key] = value
	return e
}

// WithInternal sets one field for the gateway's log only; returns e for chaining.
func (e *Error) WithInternal(key string, value any) *Error {
	if e.Internal == nil {
		e.Internal = map[string]any{}
	}
	e.Internal[key] = value
	return e
}

// IsCode reports whether code is one of the table's codes.
func IsCode(code string) bool {
	for _, known := range Codes {
		if known == code {
			return true
		}
	}
	return false
}

// IsPhase reports whether phase is one of the protocol's phases.
func IsPhase(phase string) bool {
	for _, known := range Phases {
		if known == phase {
			return true
		}
	}
	return false
}
