// Command hostile-tls-peer is the hostile-client suite's TLS 1.3 peer
// (gateway/test/hostileClients.test.ts, issue 31): it sends KeyUpdate
// requests and never reads the answers, as a client of the gateway's port
// or as the RDP server a session is sent to. A test tool, built beside
// pdu-check; nothing in the gateway starts it. One JSON line per event on
// stdout.
//
//	hostile-tls-peer client -address 127.0.0.1:PORT [-local 127.0.0.2] [-count N] [-upgrade /v1/sessions/x/data]
//	hostile-tls-peer server [-port 0]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"lanterna/dataplane/internal/hostiletls"
)

func say(event map[string]any) {
	line, _ := json.Marshal(event)
	fmt.Println(string(line))
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: hostile-tls-peer client|server [flags]")
		os.Exit(2)
	}
	flags := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	address := flags.String("address", "", "the gateway's host:port (client)")
	local := flags.String("local", "", "the address to connect from (client)")
	count := flags.Int("count", 1, "connections (client)")
	upgrade := flags.String("upgrade", "", "a WebSocket path to upgrade to before the flood (client); without, an HTTP request's headers never end")
	port := flags.Int("port", 0, "the port to listen on (server)")
	stall := flags.Duration("stall", time.Second, "no progress this long is a stall")
	flood := flags.Duration("flood", 20*time.Second, "the longest flood")
	hold := flags.Duration("hold", 20*time.Second, "how long to wait, stalled, for the gateway to cut the connection")
	_ = flags.Parse(os.Args[2:])
	switch os.Args[1] {
	case "client":
		clients(*address, *local, *upgrade, *count, *stall, *flood, *hold)
	case "server":
		server(*port, *stall, *flood, *hold)
	default:
		fmt.Fprintln(os.Stderr, "usage: hostile-tls-peer client|server [flags]")
		os.Exit(2)
	}
}

// outcome of one flooded connection
type outcome struct {
	upgraded, stalled, cut bool
	cutMs                  int64
	err                    string
}

func clients(address, local, path string, count int, stall, flood, hold time.Duration) {
	outcomes := make([]outcome, count)
	flooded := sync.WaitGroup{}
	done := sync.WaitGroup{}
	for i := range count {
		flooded.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			outcomes[i] = client(address, local, path, stall, flood, hold, flooded.Done)
		}()
	}
	flooded.Wait()
	tally := map[string]any{"event": "flooded"}
	count1 := func(f func(o outcome) bool) int {
		n := 0
		for _, o := range outcomes {
			if f(o) {
				n++
			}
		}
		return n
	}
	tally["stalled"] = count1(func(o outcome) bool { return o.stalled })
	say(tally)
	done.Wait()
	var maxCut int64
	var firstErr string
	for _, o := range outcomes {
		maxCut = max(maxCut, o.cutMs)
		if firstErr == "" {
			firstErr = o.err
		}
	}
	say(map[string]any{
		"event": "done", "upgraded": count1(func(o outcome) bool { return o.upgraded }),
		"stalled": count1(func(o outcome) bool { return o.stalled }), "cut": count1(func(o outcome) bool { return o.cut }),
		"held": count1(func(o outcome) bool { return o.stalled && !o.cut }), "maxCutMs": maxCut, "error": firstErr,
	})
}

func client(address, local, path string, stall, flood, hold time.Duration, flooded func()) (o outcome) {
	floodedOnce := sync.OnceFunc(flooded)
	defer floodedOnce()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := hostiletls.Dial(ctx, address, local)
	if err != nil {
		o.err = err.Error()
		return o
	}
	defer c.Raw.Close()
	next := hostiletls.HeaderBytes()
	if path != "" {
		status, err := c.Upgrade(address, path, "lanterna.v1")
		if err != nil || status != 101 {
			o.err = fmt.Sprintf("upgrade: %d %v", status, err)
			return o
		}
		o.upgraded = true
		next = hostiletls.FrameBytes()
	} else if _, err := c.Sender.Write(c.Sender.AppendData(nil, hostiletls.Request(address, "/healthz", nil))); err != nil {
		o.err = err.Error()
		return o
	}
	started := time.Now()
	_, stalled, err := c.Sender.Flood(next, stall, time.Now().Add(flood))
	o.stalled = stalled
	if err != nil {
		// cut while flooding
		o.cut, o.cutMs = true, time.Since(started).Milliseconds()
		return o
	}
	floodedOnce()
	if !stalled {
		return o
	}
	took, cut := hostiletls.WaitCut(c.Raw, hold)
	o.cut, o.cutMs = cut, took.Milliseconds()
	return o
}

func server(port int, stall, flood, hold time.Duration) {
	s, err := hostiletls.Listen(port)
	if err != nil {
		say(map[string]any{"event": "error", "error": err.Error()})
		os.Exit(1)
	}
	say(map[string]any{"event": "listening", "port": s.Port()})
	for {
		raw, sender, err := s.Accept(context.Background())
		if err != nil {
			say(map[string]any{"event": "error", "error": err.Error()})
			continue
		}
		say(map[string]any{"event": "secured"})
		go func() {
			defer raw.Close()
			started := time.Now()
			runs, stalled, err := sender.Flood(hostiletls.PduBytes(), stall, time.Now().Add(flood))
			result := map[string]any{"event": "done", "runs": runs, "stalled": stalled, "floodMs": time.Since(started).Milliseconds()}
			switch {
			case err != nil:
				result["cut"], result["error"] = true, err.Error()
			case stalled:
				took, cut := hostiletls.WaitCut(raw, hold)
				result["cut"], result["cutMs"] = cut, took.Milliseconds()
			default:
				result["cut"] = false
			}
			say(result)
		}()
	}
}
