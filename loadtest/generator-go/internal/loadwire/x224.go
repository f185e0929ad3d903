package loadwire

import (
	"fmt"

	"lanterna/dataplane/pdu"
)

// ConfirmSSL is the Connection Confirm the load test's servers answer with:
// RDP_NEG_RSP selecting TLS, as @lanterna/protocol's buildConnectionConfirm makes it.
func ConfirmSSL() []byte {
	return pdu.BuildConnectionConfirm(pdu.Confirm{Kind: pdu.ConfirmSuccess, SelectedProtocol: pdu.ProtocolSSL})
}

// ExpectTLSConfirm checks an X.224 Connection Confirm (the data plane's own
// parser) and accepts only TLS, the load test's one protocol; the error names
// the peer that answered.
func ExpectTLSConfirm(confirm []byte, peer string) error {
	parsed, err := pdu.ParseConnectionConfirm(confirm)
	if err != nil {
		return fmt.Errorf("%s sent no connection confirm: %w", peer, err)
	}
	switch parsed.Kind {
	case pdu.ConfirmSuccess:
		if parsed.SelectedProtocol != pdu.ProtocolSSL {
			return fmt.Errorf("%s selected protocol %d, not ssl", peer, parsed.SelectedProtocol)
		}
		return nil
	case pdu.ConfirmFailure:
		return fmt.Errorf("%s refused the negotiation with code %d", peer, parsed.FailureCode)
	default:
		return fmt.Errorf("%s selected protocol 0, not ssl", peer)
	}
}
