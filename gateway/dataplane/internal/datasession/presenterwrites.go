package datasession

// What the gateway writes to a presenter page: over its own socket, or as
// a frame to the sibling data plane that holds it (presenterpeerwire.go).

import (
	"fmt"

	"github.com/gorilla/websocket"
)

// writeBinary sends the page one binary message: over its socket, or to the sibling that holds it.
func (p *presenterLeg) writeBinary(data []byte) error {
	return p.write(websocket.BinaryMessage, frameBinary, data)
}

// writeText sends the page one JSON message (its `pace`) the same way.
func (p *presenterLeg) writeText(data []byte) error {
	return p.write(websocket.TextMessage, frameText, data)
}

func (p *presenterLeg) write(message int, frame byte, data []byte) error {
	if p.remote == nil {
		return p.writeLocal(message, data)
	}
	if p.state.Load() == presenterEnded {
		return errPresenterEnded
	}
	return p.writeFrame(p.remote, frame, data)
}

// writeLocal sends the page one message on its socket: binary (the
// Connection Request, the display's PDUs) or text (its `pace`).
func (p *presenterLeg) writeLocal(kind int, data []byte) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.state.Load() == presenterEnded {
		return errPresenterEnded
	}
	return p.ws.WriteMessage(kind, data)
}

var errPresenterEnded = fmt.Errorf("the presenter page's leg has ended")

// stalled: a write to the page made no progress within timeouts.writeMs.
func (p *presenterLeg) stalled() bool {
	if p.remote != nil {
		return p.remoteStalled.Load()
	}
	socket := socketUnder(p.ws.NetConn())
	return socket != nil && socket.Stalled()
}
