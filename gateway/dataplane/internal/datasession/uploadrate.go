package datasession

import "time"

// uploadRate is relay/uploadRate.ts: a token bucket of one second's bytes.
// A page past it is read later (TCP pushes back on it), never cut.
type uploadRate struct {
	bytesPerSecond float64
	tokens         float64
	at             time.Time
}

func newUploadRate(bytesPerSecond int, now time.Time) *uploadRate {
	return &uploadRate{bytesPerSecond: float64(bytesPerSecond), tokens: float64(bytesPerSecond), at: now}
}

// take counts bytes just read; how long to wait before reading again (0: read on).
func (r *uploadRate) take(bytes int, now time.Time) time.Duration {
	r.tokens = min(r.bytesPerSecond, r.tokens+now.Sub(r.at).Seconds()*r.bytesPerSecond)
	r.at = now
	r.tokens -= float64(bytes)
	if r.tokens >= 0 {
		return 0
	}
	return time.Duration(-r.tokens / r.bytesPerSecond * float64(time.Second))
}
