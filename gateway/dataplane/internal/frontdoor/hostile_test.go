package frontdoor

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lanterna/dataplane/internal/hostiletls"
)

func tlsCertificateForTests(t *testing.T) *Options {
	t.Helper()
	certificateServer := httptest.NewUnstartedServer(nil)
	certificateServer.StartTLS()
	certificate := certificateServer.TLS.Certificates[0]
	certificateServer.Close()
	return &Options{Certificate: &certificate}
}

// Issue 31, finding 1: a TLS 1.3 client that asks for key updates and keeps
// its window closed blocks Go's TLS inside Read, answering, where no read
// deadline reaches; Close waits on the same lock. Each write's deadline
// cuts it: the connection and the pending place are freed. The read
// deadlines here are long, so that the flood (a few seconds of key updates
// before the buffers on the way are full) meets the stall before them.
func TestATLSClientThatAsksForKeyUpdatesAndNeverReadsIsCutAndItsPlacesFreed(t *testing.T) {
	const writeStall = 500 * time.Millisecond
	tlsOptions := tlsCertificateForTests(t)
	door, _ := open(t, func(o *Options) {
		o.Certificate = tlsOptions.Certificate
		o.HTTPHeaders, o.HTTPRequest = 20*time.Second, 40*time.Second
		o.WriteStall = writeStall
		// as the engine: the open message is waited for under a read deadline
		o.Session = func(ws *websocket.Conn, _, _ string, _ func()) {
			_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
			_, _, _ = ws.ReadMessage()
			_ = ws.Close()
		}
	})
	for name, path := range map[string]string{"headers": "", "data socket": "/v1/sessions/s-1/data"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			c, err := hostiletls.Dial(ctx, address(door), "")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Raw.Close()
			next := hostiletls.HeaderBytes()
			if path != "" {
				if status, err := c.Upgrade(address(door), path, "lanterna.v1"); err != nil || status != http.StatusSwitchingProtocols {
					t.Fatalf("upgrade: %d %v", status, err)
				}
				if door.PendingSockets() != 1 {
					t.Fatalf("%d pending", door.PendingSockets())
				}
				next = hostiletls.FrameBytes()
			} else if _, err := c.Sender.Write(c.Sender.AppendData(nil, hostiletls.Request(address(door), "/x", nil))); err != nil {
				t.Fatal(err)
			}
			started := time.Now()
			runs, stalled, err := c.Sender.Flood(next, 2*time.Second, time.Now().Add(20*time.Second))
			if !stalled && err == nil {
				t.Fatalf("the front door took %d runs of key updates without stalling", runs)
			}
			if stalled {
				if _, cut := hostiletls.WaitCut(c.Raw, 10*time.Second); !cut {
					t.Fatalf("the stalled connection was still established %v later", time.Since(started))
				}
			}
			took := time.Since(started)
			deadline := time.Now().Add(wait)
			for (door.OpenConnections() != 0 || door.PendingSockets() != 0) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if door.OpenConnections() != 0 || door.PendingSockets() != 0 {
				t.Fatalf("%d connections, %d pending places still held", door.OpenConnections(), door.PendingSockets())
			}
			t.Logf("%d runs of key updates, cut %v after the flood began", runs, took)
		})
	}
}

// Issue 31, finding 8: one number for the request head, as Node's maxHeaderSize counts it.
func TestARequestHeadOverTheLimitIs431AndOneUnderItIsServed(t *testing.T) {
	door, _ := open(t, func(o *Options) { o.MaxHeaderBytes = 16 << 10 })
	for _, c := range []struct {
		headerBytes int
		status      int
	}{{15 << 10, http.StatusOK}, {17 << 10, http.StatusRequestHeaderFieldsTooLarge}} {
		conn := dialTCP(t, door)
		request := fmt.Sprintf("GET /x HTTP/1.1\r\nHost: h\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", c.headerBytes))
		go func() { _, _ = conn.Write([]byte(request)) }()
		_ = conn.SetReadDeadline(time.Now().Add(wait))
		reply := make([]byte, 12)
		n, _ := conn.Read(reply)
		_ = conn.Close()
		if want := fmt.Sprintf("HTTP/1.1 %d", c.status); string(reply[:n]) != want {
			t.Errorf("a head of %d bytes: %q, want %q", c.headerBytes, reply[:n], want)
		}
	}
}
