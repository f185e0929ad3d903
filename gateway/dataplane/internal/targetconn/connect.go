package targetconn

import (
	"context"

	"lanterna/dataplane/internal/sessionerr"
)

// Connect makes the server leg: TCP (TCP_NODELAY) to req.Address, the
// Connection Request and the server's Confirm (capped at MaxConfirmBytes),
// TLS, and judge on the certificate's facts. It returns the connection
// ready to relay, or the session's error (a server's RDP_NEG_FAILURE with
// its Confirm in Error.Confirm). Cancelling ctx aborts whichever phase is
// under way at once: the error is ctx's cause when that is a
// *sessionerr.Error, else gateway-shutdown in that phase.
func Connect(ctx context.Context, req Request, judge Judge) (*Connected, *sessionerr.Error) {
	if err := CheckRequest(req.ConnectionRequest, req.RequireNla); err != nil {
		return nil, err
	}
	return nil, sessionerr.New(sessionerr.PhaseConnect, sessionerr.CodeInternal, "not built yet")
}
