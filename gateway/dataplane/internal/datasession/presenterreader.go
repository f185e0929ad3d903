package datasession

// A presenter page's one reader (presenter.go): from the end of `present`
// to the socket's end, each message goes where the leg's state says (the
// desk's withdrawal, the join's Confirm, the display's session, a sibling).

import (
	"encoding/json"
	"net"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
)

// read is the socket's one reader, from the end of `present` to the socket's end.
func (p *presenterLeg) read() {
	defer close(p.readerDone)
	buffer := make([]byte, 0, 4<<10)
	for {
		kind, reader, err := p.ws.NextReader()
		if err == nil {
			buffer, err = readAll(reader, buffer[:0])
		}
		if err != nil {
			p.readerEnded(err)
			return
		}
		if !p.dispatch(presenterMessage{kind: kind, data: buffer}) {
			// the message went on whole (the join keeps it): the next one needs its own buffer
			buffer = make([]byte, 0, 4<<10)
		}
		if cap(buffer) > 256<<10 {
			buffer = make([]byte, 0, 4<<10)
		}
	}
}

// dispatch does with one message what the leg's state says; false when the
// message's buffer was handed on and must not be reused.
func (p *presenterLeg) dispatch(message presenterMessage) bool {
	p.mu.Lock()
	state := p.state.Load()
	if state == presenterConfirming {
		if p.overrun || len(p.confirm) > 0 {
			p.overrun = true
		} else {
			p.confirm <- message
			p.mu.Unlock()
			return false
		}
		p.mu.Unlock()
		return true
	}
	p.mu.Unlock()
	switch state {
	case presenterWaiting:
		why := withdrawnUnexpected
		if message.kind == websocket.TextMessage && isPresenterClose(message.data) {
			why = withdrawnClose
		}
		if p.engine.desk.withdraw(p) {
			p.withdrawn <- why
			return true
		}
		// taken as it spoke: the join judges it
		return p.dispatch(message)
	case presenterJoined:
		<-p.started
		return p.dispatch(message)
	case presenterRelaying:
		p.session.presenterMessage(p, message)
	case presenterForwarded:
		<-p.forwardReady
		if p.forward != nil {
			p.forwardMessage(message)
		}
	}
	return true
}

// readerEnded: the page's socket ended (its close, a broken frame, the goodbye's grace).
func (p *presenterLeg) readerEnded(err error) {
	switch p.state.Load() {
	case presenterWaiting:
		if p.engine.desk.withdraw(p) {
			p.withdrawn <- withdrawnGone
			return
		}
		// taken as it left: the join hears readerDone
	case presenterForwarded:
		<-p.forwardReady
		// the sibling hears the page's end as the end of its stream
		if unix, ok := p.forward.(*net.UnixConn); ok {
			_ = unix.CloseWrite()
		}
	case presenterJoined, presenterRelaying:
		<-p.started
		if p.state.Load() == presenterRelaying {
			p.log.Debug("presenter socket ended", "err", err.Error())
			// as a server that closed its connection (presenterSocketStream.ts: the socket's close ends the input)
			p.session.finish(end{reason: rpc.ReasonServerClosed})
		}
	}
}

// startRelay: the display has its secured and Confirm; the page's messages go to it from here.
func (p *presenterLeg) startRelay() {
	p.state.CompareAndSwap(presenterJoined, presenterRelaying)
	p.startOnce.Do(func() { close(p.started) })
}

// isPresenterClose: the page's polite `{"type":"close"}` (protocol/src/presenterLeg.ts).
func isPresenterClose(text []byte) bool {
	return presenterTextType(text) == "close"
}

// presenterTextType is a JSON message's type, or "" when it has none.
func presenterTextType(text []byte) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(text, &fields); err != nil || fields == nil {
		return ""
	}
	var kind string
	if raw, ok := fields["type"]; !ok || json.Unmarshal(raw, &kind) != nil {
		return ""
	}
	return kind
}
