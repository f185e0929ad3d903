package datasession

// The server leg of a browser-source session (docs/browser-presenter.md
// "What the gateway does for a presenter leg"; the Node engine's
// presenterJoin.ts and presenterSocketStream.ts): instead of TCP, X.224 and
// TLS to a target, the display's Connection Request goes to its presenter
// page's socket whole, one Connection Confirm comes back (≤ 1 KiB, within
// timeouts.confirmMs, selecting PROTOCOL_SSL), and the leg is reported
// secured with trust "presenter" and the page's own certificate. No TLS of
// the gateway's: the page's wss connection is the leg's security. Then
// whole PDUs both ways: the page's messages through the session's framer to
// the display, read at most at relay.presenterBytesPerSecond; the display's
// frames to the page as they are. Both legs stay on goroutines with
// blocking writes (a presenter session is one per display, not one of
// thousands): a leg that does not read holds up the other's reader, so TCP
// pushes back, and a write that waits past timeouts.writeMs ends the
// session with peer-not-reading.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
	"lanterna/dataplane/internal/targetconn"
	"lanterna/dataplane/pdu"
)

// checkPresenterRequest: the display's Connection Request must parse and
// offer TLS, the only security a presenter page's leg has. Neither legacy
// security nor policy.requireNla applies: there is no NLA towards a page
// authorised by the room PIN.
func checkPresenterRequest(request []byte) *sessionerr.Error {
	requested, err := pdu.ParseConnectionRequest(request)
	if err != nil {
		return sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeBadMessage, "the display's connection request is malformed: "+err.Error())
	}
	if requested&pdu.ProtocolSSL == 0 {
		return sessionerr.New(sessionerr.PhaseRequest, sessionerr.CodeNegotiationFailed,
			"the display did not offer tls, the only security a presenter page's leg has").WithDetail("requestedProtocols", requested)
	}
	return nil
}

// joinPresenter waits for the session's presenter (timeouts.connectMs),
// passes it the Connection Request and judges its Confirm. On failure the
// page has been told: its own fault as bad-message, anything else as the
// display's end.
func (s *session) joinPresenter(ctx context.Context, request []byte) (*targetconn.Connected, *sessionerr.Error) {
	timeouts := s.engine.options.Timeouts
	p := s.engine.findPresenter(ctx, s, s.ms(timeouts.ConnectMs))
	if p == nil {
		if ctx.Err() != nil {
			return nil, sessionerr.Aborted(ctx, sessionerr.PhaseConnect)
		}
		return nil, sessionerr.New(sessionerr.PhaseConnect, sessionerr.CodeTimeout,
			fmt.Sprintf("the presenter page did not connect within %d ms", timeouts.ConnectMs)).WithDetail("phase", sessionerr.PhaseConnect)
	}
	p.session = s
	s.server.presenter = p
	confirm, failure, fault := p.exchange(ctx, request, s.ms(timeouts.ConfirmMs))
	if failure != nil {
		switch {
		case fault:
			p.end(presenterGoodbye{err: sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeBadMessage, s.engine.messageOf(failure))})
		case failure.Code == sessionerr.CodeGatewayShutdown:
			p.end(presenterGoodbye{reason: rpc.ReasonGatewayShutdown})
		default:
			p.end(presenterGoodbye{reason: rpc.ReasonClientClosed})
		}
		return nil, failure
	}
	certificates := p.identity.Certificates
	if certificates == nil {
		certificates = []string{}
	}
	return &targetconn.Connected{Confirm: confirm, Address: "presenter", Secured: targetconn.Secured{
		Protocol: "ssl", Certificates: certificates, PublicKey: p.identity.PublicKey, Fingerprint: p.identity.Fingerprint, Trust: "presenter",
	}}, nil
}

// exchange sends the Connection Request and takes the Confirm: the Confirm,
// or the error and whether the page was at fault.
func (p *presenterLeg) exchange(ctx context.Context, request []byte, confirmWait time.Duration) ([]byte, *sessionerr.Error, bool) {
	left := func() *sessionerr.Error {
		return sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeServerError, "the presenter page left before its connection confirm")
	}
	faulty := func(message string, code string) ([]byte, *sessionerr.Error, bool) {
		return nil, sessionerr.New(sessionerr.PhaseX224, code, "the presenter page "+message), true
	}
	if err := p.writeBinary(request); err != nil {
		return nil, left(), false
	}
	timer := time.NewTimer(confirmWait)
	defer timer.Stop()
	var message presenterMessage
	select {
	case message = <-p.confirm:
	case <-ctx.Done():
		return nil, sessionerr.Aborted(ctx, sessionerr.PhaseX224), false
	case <-p.readerDone:
		// a Confirm that came just before the page left still counts
		select {
		case message = <-p.confirm:
		default:
			return nil, left(), false
		}
	case <-timer.C:
		return nil, sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeTimeout,
			fmt.Sprintf("the presenter page sent no connection confirm within %d ms", confirmWait.Milliseconds())).WithDetail("phase", sessionerr.PhaseX224), true
	}
	if message.kind != websocket.BinaryMessage {
		return faulty("sent text where its connection confirm belongs", sessionerr.CodeX224Invalid)
	}
	confirm := message.data
	if len(confirm) > targetconn.MaxConfirmBytes {
		return faulty(fmt.Sprintf("sent %d bytes where a connection confirm of at most %d belongs", len(confirm), targetconn.MaxConfirmBytes), sessionerr.CodeX224Invalid)
	}
	parsed, err := parseOneConfirm(confirm)
	if err != nil {
		return faulty("sent no connection confirm: "+err.Error(), sessionerr.CodeX224Invalid)
	}
	if parsed.Kind == pdu.ConfirmFailure {
		// targetConnector.ts's NegotiationFailure: the display gets the Confirm with the error
		failure := sessionerr.New(sessionerr.PhaseX224, sessionerr.CodeNegotiationFailed, "").WithDetail("failureCode", parsed.FailureCode)
		failure.Confirm = confirm
		return nil, failure, true
	}
	if parsed.SelectedProtocol != pdu.ProtocolSSL {
		return faulty(fmt.Sprintf("selected protocol %d, not tls (1)", parsed.SelectedProtocol), sessionerr.CodeNegotiationFailed)
	}
	p.mu.Lock()
	overrun := p.overrun
	if !overrun && !p.state.CompareAndSwap(presenterConfirming, presenterJoined) {
		p.mu.Unlock()
		return nil, left(), false
	}
	p.mu.Unlock()
	if overrun {
		return faulty("sent more than its connection confirm before the display answered", sessionerr.CodeX224Invalid)
	}
	return confirm, nil, false
}

// parseOneConfirm: the message is one TPKT, and a Connection Confirm (with
// no negotiation: standard RDP security, selected protocol 0).
func parseOneConfirm(confirm []byte) (pdu.Confirm, error) {
	pdus, _, err := pdu.SplitWhole(confirm, pdu.ModeRDP, 0)
	if err != nil {
		return pdu.Confirm{}, err
	}
	if len(pdus) != 1 || confirm[0] != 3 {
		return pdu.Confirm{}, errors.New("not one tpkt")
	}
	parsed, err := pdu.ParseConnectionConfirm(confirm)
	if err != nil {
		return pdu.Confirm{}, err
	}
	if parsed.Kind == pdu.ConfirmNone {
		parsed.SelectedProtocol = pdu.ProtocolRDP
	}
	return parsed, nil
}

// relayPresenter is relay for a presenter's leg: secured and the Confirm to
// the display, then both readers carry whole PDUs (no event loop: see above).
func (s *session) relayPresenter(connected *targetconn.Connected) {
	e := s.engine
	p := s.server.presenter
	if e.draining.Load() {
		s.finish(end{reason: rpc.ReasonGatewayShutdown})
		return
	}
	s.idle.arm(s.ms(e.options.Relay.IdleTimeoutMs))
	s.server.framer = pdu.NewFramer(pdu.ModeRDP, e.options.Relay.MaxFrameBytes)
	ended, writeErr := s.sendSecured(connected)
	if ended {
		return
	}
	secured := connected.Secured
	e.node.Notify(rpc.OpSecured, rpc.Secured{
		SessionID: s.id, Address: connected.Address, Protocol: secured.Protocol, Trust: secured.Trust, Fingerprint: secured.Fingerprint,
	})
	s.log.Debug("presenter leg joined", "event", "secured", "protocol", secured.Protocol, "trust", secured.Trust, "fingerprint", secured.Fingerprint)
	if writeErr != nil {
		s.finish(end{reason: rpc.ReasonClientClosed})
		return
	}
	p.startRelay()
}

// presenterMessage is one message from the page while relaying (the page's
// reader): whole PDUs to the display, a polite close, or the page's fault.
// Past its upload rate the reader waits before its next read, and the page
// hears its `pace` once a second (presenterpace.go).
func (s *session) presenterMessage(p *presenterLeg, message presenterMessage) {
	if s.life.ended.Load() {
		return
	}
	if message.kind != websocket.BinaryMessage {
		kind := presenterTextType(message.data)
		if kind == "close" {
			s.finish(end{reason: rpc.ReasonServerClosed})
			return
		}
		if kind == "" {
			kind = "not a message"
		}
		s.presenterBroke(p, sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeBadMessage, "the presenter page sent text that is not close: "+kind))
		return
	}
	_, next, err := pdu.CountWhole(message.data, p.mode, 0)
	if err != nil {
		code := sessionerr.CodeBadMessage
		var framing *pdu.FramingError
		if errors.As(err, &framing) && framing.Code == pdu.CodePduTooLarge {
			code = sessionerr.CodePduTooLarge
		}
		s.presenterBroke(p, sessionerr.New(sessionerr.PhaseRelay, code, "the presenter page sent a message that is not whole rdp pdus: "+err.Error()))
		return
	}
	p.mode = next
	if !s.serverBytes(message.data) || p.rate == nil {
		return
	}
	now := time.Now()
	p.pace.read(len(message.data))
	if wait := p.rate.take(len(message.data), now); wait > 0 {
		p.pace.wait(wait)
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-s.life.finished:
			timer.Stop()
		}
	}
	if body := p.pace.report(time.Now()); body != nil {
		// a page that takes no writes is cut by the relay's own write path; its pace is only advice
		_ = p.writeText(body)
	}
}

// presenterBroke: the page broke the leg's rules. It hears its fault; the
// display hears server-error with the page's reason.
func (s *session) presenterBroke(p *presenterLeg, fault *sessionerr.Error) {
	p.fault.Store(fault)
	s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeServerError, fault.Message).WithDetail("side", "server")})
}

// writePresenter is clientFrame's write for a presenter's leg.
func (s *session) writePresenter(frame []byte) {
	p := s.server.presenter
	err := p.writeBinary(frame)
	switch {
	case err == nil || s.life.ended.Load():
	case p.stalled():
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodePeerNotReading,
			fmt.Sprintf("the presenter page took none of the gateway's writes for %d ms", s.engine.options.Timeouts.WriteMs)).WithDetail("side", "server")})
	default:
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeServerError, "").WithInternal("error", err.Error())})
	}
}

// endPresenter tells the page how the session ended (presenterJoin.ts's
// endPresenter): its own fault; an error of its side as it is; the
// display's error as the reason it ended; or the reason.
func (s *session) endPresenter(how end) {
	p := s.server.presenter
	if fault := p.fault.Load(); fault != nil {
		p.end(presenterGoodbye{err: fault})
		return
	}
	if how.err != nil {
		if side, _ := how.err.Detail["side"].(string); side == "server" {
			p.end(presenterGoodbye{err: how.err})
			return
		}
		p.end(presenterGoodbye{reason: how.err.Code})
		return
	}
	p.end(presenterGoodbye{reason: how.reason})
}
