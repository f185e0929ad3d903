// lanterna-generator: the load test's generator process in Go. It speaks the
// kiosk protocol (docs/kiosk-protocol.md) as loadtest/src/generatorMain.ts
// does, takes the coordinator's messages as JSON lines on stdin and answers on
// stdout, so the same pool, ramps and reports drive either generator. Run by
// loadtest/src/goGeneratorChild.ts; built by build.sh.
package main

import (
	"bufio"
	"context"
	"crypto/tls"

	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"lanterna/dataplane/edgeloop"
)

const highestTrackableUs = 120_000_000

type counters struct {
	sent, received, failures int64
	lastFailure              *string
}

type generator struct {
	mu          sync.Mutex
	target      relayTarget
	trust       *tls.Config
	wire        wireDetails
	pattern     trafficPattern
	concurrency int
	timeout     time.Duration
	connections []*pacedConnection
	wheel       *pacingWheel
	// reads the direct channels (internal/edgeloop)
	loop        *edgeloop.Loop
	roundTrips  *hdrhistogram.Histogram
	lateness    *hdrhistogram.Histogram
	counters    counters
	windowStart time.Time
	windowCPU   time.Duration
	epoch       time.Time
	out         *json.Encoder
	outMu       sync.Mutex
}

func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, highestTrackableUs, 3) }

func (g *generator) monotonicNs(t time.Time) int64 { return int64(t.Sub(g.epoch)) }

// recordRoundTrip and recordLateness: called with g.mu held.
func (g *generator) recordRoundTrip(ns int64) {
	us := min(max(int64(math.Round(float64(ns)/1000)), 1), highestTrackableUs)
	_ = g.roundTrips.RecordValue(us)
}

func (g *generator) recordLateness(late time.Duration) {
	us := min(max(late.Microseconds(), 1), highestTrackableUs)
	_ = g.lateness.RecordValue(us)
}

func (g *generator) send(message any) {
	g.outMu.Lock()
	defer g.outMu.Unlock()
	if err := g.out.Encode(message); err != nil {
		os.Exit(1)
	}
}

func processCPU() time.Duration {
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

func (g *generator) connect(display displayAssignment) (echoChannel, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*g.timeout)
	defer cancel()
	switch g.target.Kind {
	case "lanterna":
		return connectKiosk(ctx, &g.wire, g.target.BaseURL, g.trust, display, g.timeout)
	case "websockify", "pipe", "pipe-go":
		return connectStreamRelay(ctx, &g.wire, g.target.URL, display.LocalAddress, g.target.Kind, g.trust, g.timeout)
	case "direct":
		return connectDirect(ctx, &g.wire, g.target.Host, g.target.Port, g.timeout)
	}
	return nil, fmt.Errorf("unknown target kind %q", g.target.Kind)
}

func (g *generator) openAll(displays []displayAssignment) {
	var (
		mu                 sync.Mutex
		next, opened, fail int
		firstError         *string
		wait               sync.WaitGroup
	)
	worker := func() {
		defer wait.Done()
		for {
			mu.Lock()
			if next >= len(displays) {
				mu.Unlock()
				return
			}
			display := displays[next]
			next++
			mu.Unlock()
			channel, err := g.connect(display)
			mu.Lock()
			if err != nil {
				fail++
				if firstError == nil {
					text := err.Error()
					firstError = &text
				}
				mu.Unlock()
				continue
			}
			opened++
			mu.Unlock()
			connection := newPacedConnection(channel, g)
			g.mu.Lock()
			g.connections = append(g.connections, connection)
			g.mu.Unlock()
			connection.start(g.wheel, g.loop)
		}
	}
	workers := min(g.concurrency, len(displays))
	wait.Add(workers)
	for range workers {
		go worker()
	}
	// a slow open that progresses is not a stuck one (generatorPool.ts)
	done := make(chan struct{})
	go func() {
		ticker := time.NewTicker(time.Second)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				mu.Lock()
				progress := openProgressMessage{Type: "open-progress", Opened: opened, Failed: fail}
				mu.Unlock()
				g.send(progress)
			}
		}
	}()
	wait.Wait()
	close(done)
	g.send(openedMessage{Type: "opened", Opened: opened, Failed: fail, FirstError: firstError})
}

func (g *generator) beginWindow() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.roundTrips.Reset()
	g.lateness.Reset()
	g.counters = counters{}
	g.windowStart = time.Now()
	g.windowCPU = processCPU()
}

func (g *generator) endWindow() {
	g.mu.Lock()
	now := time.Now()
	wall := now.Sub(g.windowStart).Seconds()
	cpu := (processCPU() - g.windowCPU).Seconds()
	nowNs := g.monotonicNs(now)
	lateNs := int64(g.pattern.IntervalMs) * 1e6
	alive, lateOutstanding := 0, 0
	for _, connection := range g.connections {
		if !connection.alive {
			continue
		}
		alive++
		if connection.oldestOutstandingNs(nowNs) > lateNs {
			lateOutstanding += connection.outstanding()
		}
	}
	encoded, err := g.roundTrips.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		g.mu.Unlock()
		fmt.Fprintln(os.Stderr, "histogram encoding failed:", err)
		os.Exit(1)
	}
	message := windowMessage{
		Type: "window", Histogram: string(encoded),
		Sent: g.counters.sent, Received: g.counters.received, Failures: g.counters.failures, LastFailure: g.counters.lastFailure,
		Alive: alive, LateOutstanding: lateOutstanding,
		CPUCores:       cpu / wall,
		LoopDelayP99Ms: float64(g.lateness.ValueAtQuantile(99)) / 1000,
		LoopDelayMaxMs: float64(g.lateness.Max()) / 1000,
		WallSeconds:    wall,
	}
	if g.lateness.TotalCount() == 0 {
		message.LoopDelayP99Ms, message.LoopDelayMaxMs = 0, 0
	}
	g.mu.Unlock()
	g.send(message)
}

func (g *generator) closeAll() {
	g.mu.Lock()
	connections := g.connections
	g.connections = nil
	g.mu.Unlock()
	for _, connection := range connections {
		connection.close()
	}
	// give the close frames a moment to leave before the coordinator ends us
	time.AfterFunc(300*time.Millisecond, func() { g.send(map[string]string{"type": "closed"}) })
}

func main() {
	// The heap is a few MB of long-lived connections and the hot path
	// allocates next to nothing: collect rarely.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	g := &generator{
		pattern: trafficPattern{UpBytes: 90, DownBytes: 90, IntervalMs: 100}, concurrency: 32, timeout: 15 * time.Second,
		roundTrips: newHistogram(), lateness: newHistogram(), epoch: time.Now(), windowStart: time.Now(),
		out: json.NewEncoder(os.Stdout),
	}
	g.send(map[string]string{"type": "ready"})
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 1<<20), 64<<20)
	for lines.Scan() {
		var message coordinatorMessage
		if err := json.Unmarshal(lines.Bytes(), &message); err != nil {
			fmt.Fprintln(os.Stderr, "unreadable coordinator message:", err)
			os.Exit(2)
		}
		switch message.Type {
		case "configure":
			if message.Target == nil || message.Pattern == nil || message.Wire == nil {
				fmt.Fprintln(os.Stderr, "configure without target, pattern or wire details")
				os.Exit(2)
			}
			g.target, g.pattern, g.wire = *message.Target, *message.Pattern, *message.Wire
			trust, err := relayTrust(g.target.CaPem)
			if err != nil {
				fmt.Fprintln(os.Stderr, "configure:", err)
				os.Exit(2)
			}
			g.trust = trust
			g.concurrency = max(1, message.ConnectConcurrency)
			g.timeout = time.Duration(message.ConnectTimeoutMs) * time.Millisecond
			g.wheel = newPacingWheel(time.Duration(g.pattern.IntervalMs) * time.Millisecond)
			if g.target.Kind == "direct" && g.loop == nil {
				if g.loop, err = edgeloop.New(16384); err != nil {
					fmt.Fprintln(os.Stderr, "configure:", err)
					os.Exit(2)
				}
			}
		case "open":
			go g.openAll(message.Displays)
		case "begin-window":
			g.beginWindow()
		case "end-window":
			g.endWindow()
		case "close-all":
			g.closeAll()
		}
	}
	// stdin closed: the coordinator is gone
	os.Exit(0)
}
