package datasession

import (
	"context"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/hostiletls"
	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
)

func cappedBacklogs(o *Options) {
	o.Relay.HighWaterBytes, o.Relay.LowWaterBytes, o.Relay.MaxBacklogBytes = 64<<10, 16<<10, 256<<10
}

func endedNotReading(t *testing.T, node *fakeNode, side string) {
	t.Helper()
	ended := node.ended(t)
	if ended.Reason != rpc.ReasonError || ended.Error == nil || ended.Error.Code != sessionerr.CodePeerNotReading || ended.Error.Detail["side"] != side {
		t.Fatalf("ended %+v %+v, expected peer-not-reading on the %s side", ended, ended.Error, side)
	}
}

// Issue 31: pongs wait for a display that pings and never reads; past the cap it is cut, and the end says why.
func TestADisplayThatPingsAndNeverReadsIsCutWithPeerNotReading(t *testing.T) {
	_, node, k := relayingEcho(t, cappedBacklogs)
	ping := make([]byte, 125)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if err := k.ws.WriteControl(websocket.PingMessage, ping, time.Now().Add(time.Second)); err != nil {
			break // cut
		}
		if ops := node.ops(); len(ops) > 0 && ops[len(ops)-1] == rpc.OpEnded {
			break
		}
	}
	endedNotReading(t, node, "client")
}

// Issue 31: Go's TLS answers each key update a server asks for at once, into
// the leg's backlog; a server that never reads is cut past the cap.
func TestAServerThatAsksForKeyUpdatesAndNeverReadsIsCutWithPeerNotReading(t *testing.T) {
	server, err := hostiletls.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Listener.Close() })
	flooded := make(chan error, 1)
	go func() {
		raw, sender, err := server.Accept(context.Background())
		if err != nil {
			flooded <- err
			return
		}
		defer raw.Close()
		_, _, err = sender.Flood(hostiletls.PduBytes(), 5*time.Second, time.Now().Add(20*time.Second))
		flooded <- err
	}()
	node := &fakeNode{target: rpc.ResolveAnswer{Host: "127.0.0.1", Port: server.Port(), Address: "127.0.0.1"}}
	h := newHarness(t, node, cappedBacklogs)
	k := h.kiosk(t)
	k.secure()
	// the display reads what comes (whole PDUs) until the session's end
	_ = k.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		if _, _, err := k.ws.ReadMessage(); err != nil {
			break
		}
	}
	endedNotReading(t, node, "server")
	if err := <-flooded; err == nil {
		t.Fatal("the server's flood ran its course: it was not cut")
	}
}
