// Command hostile-tls-peer is the hostile-client suite's TLS 1.3 peer
// (gateway/test/hostileClients.test.ts, issue 31): it sends KeyUpdate
// requests and never reads the answers, as a client of the gateway's port
// or as the RDP server a session is sent to. A test tool, built beside
// pdu-check; nothing in the gateway starts it. One JSON line per event on
// stdout. The flood benchmark (gateway/bench/floodBench.ts) runs it at full
// size: connections spread over several source addresses (-local a,b,c),
// one line per connection (-each), and each connection made again once the
// gateway cut it, until a time (-until).
//
//	hostile-tls-peer client -address 127.0.0.1:PORT [-local 127.0.0.2[,127.0.0.3…]] [-count N] [-rate N] [-upgrade /v1/sessions/x/data] [-each] [-until 5m]
//	hostile-tls-peer server [-port 0]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
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
	local := flags.String("local", "", "the address to connect from, or several, comma-separated, taken in turn (client)")
	count := flags.Int("count", 1, "connections (client)")
	upgrade := flags.String("upgrade", "", "a WebSocket path to upgrade to before the flood (client); without, an HTTP request's headers never end")
	port := flags.Int("port", 0, "the port to listen on (server)")
	stall := flags.Duration("stall", time.Second, "no progress this long is a stall")
	flood := flags.Duration("flood", 20*time.Second, "the longest flood")
	hold := flags.Duration("hold", 20*time.Second, "how long to wait, stalled, for the gateway to cut the connection")
	each := flags.Bool("each", false, "one line per connection as it ends (client)")
	until := flags.Duration("until", 0, "connect again once a connection ends, until this has passed (client; 0: once)")
	rate := flags.Int("rate", 0, "first connections started per second (client; 0: all at once)")
	_ = flags.Parse(os.Args[2:])
	switch os.Args[1] {
	case "client":
		run := clientRun{address: *address, locals: strings.Split(*local, ","), path: *upgrade, count: *count,
			stall: *stall, flood: *flood, hold: *hold, each: *each, until: *until, rate: *rate, started: time.Now()}
		run.clients()
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
	// cutMs: from the flood's start (cut while flooding) or from the stall to the cut, or to the end of the hold
	cutMs int64
	// handshakeMs: connect and TLS handshake
	handshakeMs int64
	err         string
}

// clientRun is the client mode's flags.
type clientRun struct {
	address, path string
	locals        []string
	count, rate   int
	stall, flood  time.Duration
	hold, until   time.Duration
	each          bool
	started       time.Time
	sayMu         sync.Mutex
}

func (r *clientRun) clients() {
	var mu sync.Mutex
	var outcomes []outcome
	flooded := sync.WaitGroup{}
	done := sync.WaitGroup{}
	for i := range r.count {
		flooded.Add(1)
		done.Add(1)
		local := r.locals[i%len(r.locals)]
		go func() {
			defer done.Done()
			if r.rate > 0 {
				time.Sleep(time.Duration(i) * time.Second / time.Duration(r.rate))
			}
			first := flooded.Done
			for {
				connected := time.Now()
				o := r.client(local, first)
				first = func() {}
				mu.Lock()
				outcomes = append(outcomes, o)
				mu.Unlock()
				if r.each {
					r.sayConnection(local, connected, o)
				}
				if r.until <= 0 || time.Since(r.started) >= r.until {
					return
				}
				if !o.upgraded && !o.stalled && !o.cut {
					// refused before the flood (a limit, a handshake that failed): not at once again
					time.Sleep(200 * time.Millisecond)
				}
			}
		}()
	}
	flooded.Wait()
	count1 := func(f func(o outcome) bool) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, o := range outcomes {
			if f(o) {
				n++
			}
		}
		return n
	}
	// the first round's tally (in -until mode the rounds after it are under way)
	r.say(map[string]any{"event": "flooded", "stalled": count1(func(o outcome) bool { return o.stalled })})
	done.Wait()
	var maxCut int64
	var firstErr string
	for _, o := range outcomes {
		maxCut = max(maxCut, o.cutMs)
		if firstErr == "" {
			firstErr = o.err
		}
	}
	r.say(map[string]any{
		"event": "done", "connections": len(outcomes), "upgraded": count1(func(o outcome) bool { return o.upgraded }),
		"stalled": count1(func(o outcome) bool { return o.stalled }), "cut": count1(func(o outcome) bool { return o.cut }),
		"held": count1(func(o outcome) bool { return o.stalled && !o.cut }), "maxCutMs": maxCut, "error": firstErr,
	})
}

func (r *clientRun) say(event map[string]any) {
	r.sayMu.Lock()
	defer r.sayMu.Unlock()
	say(event)
}

// sayConnection is one connection's line: from where, when it was made
// (ms since start), how long the gateway kept it (lifeMs: connect to cut,
// or to the end of the hold when it was not cut; handshakeMs of it were the
// connect and the TLS handshake) and the outcome.
func (r *clientRun) sayConnection(local string, connected time.Time, o outcome) {
	r.say(map[string]any{
		"event": "connection", "local": local, "atMs": connected.Sub(r.started).Milliseconds(),
		"lifeMs": time.Since(connected).Milliseconds(), "upgraded": o.upgraded, "stalled": o.stalled, "cut": o.cut,
		"cutMs": o.cutMs, "handshakeMs": o.handshakeMs, "error": o.err,
	})
}

func (r *clientRun) client(local string, flooded func()) (o outcome) {
	floodedOnce := sync.OnceFunc(flooded)
	defer floodedOnce()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dialed := time.Now()
	c, err := hostiletls.Dial(ctx, r.address, local)
	o.handshakeMs = time.Since(dialed).Milliseconds()
	if err != nil {
		o.err = err.Error()
		return o
	}
	defer c.Raw.Close()
	next := hostiletls.HeaderBytes()
	if r.path != "" {
		status, err := c.Upgrade(r.address, r.path, "lanterna.v1")
		if err != nil || status != 101 {
			o.err = fmt.Sprintf("upgrade: %d %v", status, err)
			return o
		}
		o.upgraded = true
		next = hostiletls.FrameBytes()
	} else if _, err := c.Sender.Write(c.Sender.AppendData(nil, hostiletls.Request(r.address, "/healthz", nil))); err != nil {
		o.err = err.Error()
		return o
	}
	started := time.Now()
	_, stalled, err := c.Sender.Flood(next, r.stall, time.Now().Add(r.flood))
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
	took, cut := hostiletls.WaitCut(c.Raw, r.hold)
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
