package datasession

// A presenter page's goodbye: said once, by whichever side ended first (its
// wait, its join, its display's session, or the sibling that took it).

import (
	"encoding/json"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
)

// presenterGoodbye is what the page is told as its leg ends: an error, or `ended` with a reason.
type presenterGoodbye struct {
	err    *sessionerr.Error
	reason string
	// silent: the page is gone; nothing is written.
	silent bool
}

// end says the page's goodbye once (its error, or `ended` and a close frame),
// lets its close frame or the grace end the reader, and tells Node.
func (p *presenterLeg) end(goodbye presenterGoodbye) {
	p.endOnce.Do(func() {
		e := p.engine
		p.state.Store(presenterEnded)
		p.startOnce.Do(func() { close(p.started) })
		if p.remote != nil {
			// the sibling that holds the page says it
			p.remoteGoodbye(goodbye)
			close(p.ended)
			return
		}
		grace := e.options.CloseGrace
		if !goodbye.silent {
			cut := time.AfterFunc(grace, func() { _ = underTLS(p.ws.NetConn()).Close() })
			p.writeMu.Lock()
			_ = p.ws.SetWriteDeadline(time.Now().Add(grace))
			if goodbye.err != nil {
				body, _ := json.Marshal(errorMessage{Type: "error", Phase: goodbye.err.Phase, Code: goodbye.err.Code, Message: p.engine.messageOf(goodbye.err), Detail: nonNil(goodbye.err.Detail)})
				_ = p.ws.WriteMessage(websocket.TextMessage, body)
				_ = p.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(p.engine.closeCodeOf(goodbye.err.Code), goodbye.err.Code))
			} else {
				code := websocket.CloseNormalClosure
				if goodbye.reason == rpc.ReasonGatewayShutdown {
					code = websocket.CloseGoingAway
				}
				_ = p.ws.WriteMessage(websocket.TextMessage, endedJSON(goodbye.reason))
				_ = p.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, goodbye.reason))
			}
			p.writeMu.Unlock()
			cut.Stop()
		}
		// the page's close frame, or the grace, ends the reader
		_ = p.ws.NetConn().SetReadDeadline(time.Now().Add(grace))
		ended := rpc.PresenterEnded{SessionID: p.id, Reason: goodbye.reason}
		if goodbye.err != nil {
			ended.Reason = rpc.ReasonError
			ended.Error = &rpc.EndedError{Phase: goodbye.err.Phase, Code: goodbye.err.Code, Message: p.engine.messageOf(goodbye.err), Detail: nonNil(goodbye.err.Detail), Internal: nonNil(goodbye.err.Internal)}
		}
		e.node.Notify(rpc.OpPresenterEnded, ended)
		if p.forward != nil {
			// the sibling's display hears the end of the page's stream
			_ = p.forward.Close()
		}
		e.endForward(p)
		close(p.ended)
		e.goodbyes.Done()
	})
}
