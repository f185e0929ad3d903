package datasession

import (
	"sync/atomic"
	"time"

	"lanterna/dataplane/internal/rpc"
)

// counters are a session's or a tally's figures (relayTally's fields).
type counters struct {
	bytesToKiosk, pdusToKiosk, framesToKiosk    uint64
	bytesToServer, pdusToServer, framesToServer uint64
	copiedBytes, pauses                         uint64
}

func (c *counters) add(other counters) {
	c.bytesToKiosk += other.bytesToKiosk
	c.pdusToKiosk += other.pdusToKiosk
	c.framesToKiosk += other.framesToKiosk
	c.bytesToServer += other.bytesToServer
	c.pdusToServer += other.pdusToServer
	c.framesToServer += other.framesToServer
	c.copiedBytes += other.copiedBytes
	c.pauses += other.pauses
}

func (c counters) minus(other counters) counters {
	return counters{
		bytesToKiosk: c.bytesToKiosk - other.bytesToKiosk, pdusToKiosk: c.pdusToKiosk - other.pdusToKiosk,
		framesToKiosk: c.framesToKiosk - other.framesToKiosk, bytesToServer: c.bytesToServer - other.bytesToServer,
		pdusToServer: c.pdusToServer - other.pdusToServer, framesToServer: c.framesToServer - other.framesToServer,
		copiedBytes: c.copiedBytes - other.copiedBytes, pauses: c.pauses - other.pauses,
	}
}

// liveCounters are written by one goroutine each direction (plain atomic
// adds, uncontended) and read by the sampler once a second.
type liveCounters struct {
	bytesToKiosk, pdusToKiosk, framesToKiosk, copiedBytes atomic.Uint64
	bytesToServer, pdusToServer, framesToServer           atomic.Uint64
	pauses                                                atomic.Uint64
}

func (l *liveCounters) load() counters {
	return counters{
		bytesToKiosk: l.bytesToKiosk.Load(), pdusToKiosk: l.pdusToKiosk.Load(), framesToKiosk: l.framesToKiosk.Load(),
		bytesToServer: l.bytesToServer.Load(), pdusToServer: l.pdusToServer.Load(), framesToServer: l.framesToServer.Load(),
		copiedBytes: l.copiedBytes.Load(), pauses: l.pauses.Load(),
	}
}

// LatencyBounds are gatewayMetrics.ts's relayLatency buckets, in seconds.
var LatencyBounds = [...]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.5}

var latencyBoundsNs = func() []int64 {
	bounds := make([]int64, len(LatencyBounds))
	for i, bound := range LatencyBounds {
		bounds[i] = int64(bound * 1e9)
	}
	return bounds
}()

// histogram counts relay latencies per bucket (the last: over every bound),
// taken and reset by each sample.
type histogram struct {
	counts [len(LatencyBounds) + 1]atomic.Uint64
	sumNs  atomic.Int64
}

func (h *histogram) observe(d time.Duration) {
	ns := int64(d)
	bucket := len(latencyBoundsNs)
	for i, bound := range latencyBoundsNs {
		if ns <= bound {
			bucket = i
			break
		}
	}
	h.counts[bucket].Add(1)
	h.sumNs.Add(ns)
}

func (h *histogram) take() (latency rpc.Latency) {
	latency.Bounds = LatencyBounds[:]
	latency.Counts = make([]uint64, len(h.counts))
	for i := range h.counts {
		latency.Counts[i] = h.counts[i].Swap(0)
	}
	latency.Sum = float64(h.sumNs.Swap(0)) / 1e9
	return latency
}

// figures are what the sample reports of one session. live is added to by
// each direction's goroutine; copiedSeen is the server reader's; sampled
// and sampleSlot are the sampler's (under engine.mu).
type figures struct {
	live liveCounters
	// pauses counts the writes to the display that had to wait (its socket's count)
	pauses pauseCounter
	// copiedSeen: the framer's copied bytes already added to live
	copiedSeen uint64
	sampled    counters
	// sampleSlot: which of the sample's slices carries this session
	sampleSlot int
}

// pauseCounter is a connection that counts the writes that had to wait (the display's socket).
type pauseCounter interface{ Pauses() uint64 }

func (f *figures) totals() counters {
	totals := f.live.load()
	if f.pauses != nil {
		totals.pauses = f.pauses.Pauses()
	}
	return totals
}

// unsampledFrom is totals less what earlier samples took; they are taken now. Under engine.mu.
func (f *figures) unsampledFrom(totals counters) counters {
	delta := totals.minus(f.sampled)
	f.sampled = totals
	return delta
}

func (f *figures) unsampled() counters { return f.unsampledFrom(f.totals()) }

// copied adds what the framer copied since the last look (its total is copied).
func (f *figures) copied(copied uint64) {
	if copied != f.copiedSeen {
		f.live.copiedBytes.Add(copied - f.copiedSeen)
		f.copiedSeen = copied
	}
}
