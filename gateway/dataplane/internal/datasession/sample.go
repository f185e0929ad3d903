package datasession

import "lanterna/dataplane/internal/rpc"

// SampleSlices: the sample goes to Node in this many slices, each with the
// sessions of its slot, so each session's figures go once per SampleSlices
// slices. All sessions in one go was a burst on the relay's core each
// second (the data plane's JSON, then Node's bookkeeping: 6–18 ms at 1,600
// sessions), as long as the p99 of a load of ten messages a second.
const SampleSlices = 10

// Sample is the once-a-second report: every granted session's totals, the
// tallies and latency observations since the previous Sample.
func (e *Engine) Sample() rpc.Sample { return e.sample(-1) }

// SampleSlice is Sample with only the sessions of one slot (0 ≤ slot <
// SampleSlices); the tallies and latencies are everything since the last
// slice, so they add up whichever slices carry them.
func (e *Engine) SampleSlice(slot int) rpc.Sample { return e.sample(slot) }

func (e *Engine) sample(slot int) rpc.Sample {
	e.mu.Lock()
	defer e.mu.Unlock()
	size := len(e.byID)
	if slot >= 0 {
		size = size/SampleSlices + 1
	}
	sample := rpc.Sample{Sessions: make([]rpc.SessionSample, 0, size)}
	delta := e.retired
	e.retired = counters{}
	for id, s := range e.byID {
		if slot >= 0 && s.figures.sampleSlot != slot {
			continue
		}
		totals := s.figures.totals()
		sample.Sessions = append(sample.Sessions, rpc.SessionSample{
			SessionID: id, BytesToDisplay: totals.bytesToKiosk, BytesToServer: totals.bytesToServer,
			PdusToDisplay: totals.pdusToKiosk, FramesToDisplay: totals.framesToKiosk,
		})
		delta.add(s.figures.unsampledFrom(totals))
	}
	sample.Tally = &rpc.Tally{
		BytesToKiosk: delta.bytesToKiosk, PdusToKiosk: delta.pdusToKiosk, FramesToKiosk: delta.framesToKiosk,
		BytesToServer: delta.bytesToServer, PdusToServer: delta.pdusToServer, FramesToServer: delta.framesToServer,
		CopiedBytes: delta.copiedBytes, Pauses: delta.pauses,
	}
	latency := e.latency.take()
	sample.Latency = &latency
	return sample
}
