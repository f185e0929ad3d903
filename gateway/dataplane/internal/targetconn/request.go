package targetconn

import (
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/pdu"
)

// CheckRequest judges the display's Connection Request before the gateway
// asks Node to resolve the target: it must parse (request bad-message), ask
// for a protocol the gateway relays (request legacy-security) and, with
// requireNla, offer NLA (request negotiation-failed). Nil when it may go on.
func CheckRequest(connectionRequest []byte, requireNla bool) *sessionerr.Error {
	requested, err := pdu.ParseConnectionRequest(connectionRequest)
	if err != nil {
		return sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeBadMessage, "the display's connection request is malformed: "+err.Error())
	}
	if requested&relayedProtocols == 0 {
		return sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeLegacySecurity,
			"the display asked for legacy RDP security, which the gateway does not relay").
			WithDetail("requestedProtocols", requested)
	}
	if requireNla && requested&nlaProtocols == 0 {
		return sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeNegotiationFailed,
			"the gateway requires Network Level Authentication, and the display did not offer it").
			WithDetail("requestedProtocols", requested)
	}
	return nil
}
