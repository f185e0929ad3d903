package datasession

// The relay's event loop (loop.go, displayleg.go): backpressure between
// the legs, and the display's frames parsed as gorilla parses them.

import (
	"bytes"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/rpc"
)

// bigTPKT is a TPKT of n bytes (n ≤ 65535) filled with fill after its X.224 Data header.
func bigTPKT(n int, fill byte) []byte {
	frame := bytes.Repeat([]byte{fill}, n)
	copy(frame, []byte{0x03, 0x00, byte(n >> 8), byte(n), 0x02, 0xf0, 0x80})
	return frame
}

func TestADisplayThatStopsReadingPausesItsServerLosesNothingAndHoldsUpNoOtherSession(t *testing.T) {
	h, _, stalled := relayingEcho(t, func(o *Options) {
		o.Relay.HighWaterBytes, o.Relay.LowWaterBytes = 64<<10, 16<<10
	})
	h.engine.mu.Lock()
	session := h.engine.byID["s1"]
	h.engine.mu.Unlock()
	if session == nil || !session.pump.looped.Load() {
		t.Fatal("the relaying session's legs are not on the event loop")
	}
	// far more than the sockets hold (loopback's buffers grow to megabytes):
	// the echo backs up to the display, which reads nothing yet
	var sent []byte
	for i := range 2000 {
		sent = append(sent, bigTPKT(16000, byte(i))...)
	}
	sending := make(chan error, 1)
	go func() {
		for offset := 0; offset < len(sent); offset += 16000 {
			if err := stalled.ws.WriteMessage(websocket.BinaryMessage, sent[offset:offset+16000]); err != nil {
				sending <- err
				return
			}
		}
		sending <- nil
	}()
	deadline := time.Now().Add(wait)
	for session.figures.totals().pauses == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the display's backlog never paused the server leg")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// held there: the backlogs stay near their mark (the display is not read
	// while the server's is pressed, the server not while the display's is),
	// and so the display's writes wait
	most := 0
	for range 20 {
		most = max(most, session.display.socket.Backlog(), session.server.socket.Backlog())
		time.Sleep(10 * time.Millisecond)
	}
	if most > 128<<10 {
		t.Fatalf("a backlog of %d bytes past a 64 KiB mark", most)
	}
	select {
	case err := <-sending:
		t.Fatalf("the display wrote everything while nothing was read back (%v)", err)
	default:
	}
	// the loop serves others meanwhile
	other := h.kiosk(t)
	other.secure()
	other.send(websocket.BinaryMessage, tpkt)
	if got := other.read(websocket.BinaryMessage); !bytes.Equal(got, tpkt) {
		t.Fatalf("the other session's echo: %x", got)
	}
	// the display reads again: everything arrives, in order
	var got []byte
	_ = stalled.ws.SetReadDeadline(time.Now().Add(3 * wait))
	for len(got) < len(sent) {
		got = append(got, stalled.read(websocket.BinaryMessage)...)
	}
	if !bytes.Equal(got, sent) {
		t.Fatalf("the display read %d bytes, not the %d sent in order", len(got), len(sent))
	}
	if err := <-sending; err != nil {
		t.Fatal(err)
	}
	if backlog := session.display.socket.Backlog() + session.server.socket.Backlog(); backlog != 0 {
		t.Fatalf("%d bytes still kept after everything arrived", backlog)
	}
}

func TestTheDisplaysWebSocketFramesAreReadAsGorillaReadsThem(t *testing.T) {
	_, node, k := relayingEcho(t, nil)
	// a protocol-level ping is answered with its payload
	pong := make(chan string, 1)
	k.ws.SetPongHandler(func(data string) error { pong <- data; return nil })
	if err := k.ws.WriteControl(websocket.PingMessage, []byte("are you there"), time.Now().Add(wait)); err != nil {
		t.Fatal(err)
	}
	k.send(websocket.BinaryMessage, tpkt)
	if got := k.read(websocket.BinaryMessage); !bytes.Equal(got, tpkt) {
		t.Fatalf("echo %x", got)
	}
	select {
	case data := <-pong:
		if data != "are you there" {
			t.Fatalf("pong %q", data)
		}
	default:
		t.Fatal("no pong before the echo")
	}
	// a message too big for the relay is closed 1009, as gorilla's read limit does
	k.send(websocket.BinaryMessage, make([]byte, 300<<10))
	if code, _ := k.closed(); code != websocket.CloseMessageTooBig {
		t.Fatalf("closed %d", code)
	}
	if ended := node.ended(t); ended.Reason != rpc.ReasonClientClosed {
		t.Fatalf("ended %+v", ended)
	}
}
