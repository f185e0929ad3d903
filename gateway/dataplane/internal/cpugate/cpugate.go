// Package cpugate bounds how many goroutines do CPU-heavy work of one kind
// at once: TLS handshakes (issue 31, finding 7).
//
// Why: Go's scheduler runs runnable goroutines in turn. When a worker dies,
// hundreds of displays reconnect within a second and each handshake (the
// front door's signature, a server leg's key exchange) is a runnable
// goroutine with milliseconds of work: the relay's event loop, woken for a
// healthy session's bytes, waits behind all of them, and the room sees the
// picture freeze for a second and more. With a gate, at most its size of
// handshakes compute at a time and the loop waits behind those only; the
// handshakes finish as fast in all (the CPU was the limit), in turn.
//
// A handshake holds its slot only while it computes: its socket gives the
// slot back whenever it waits for the peer (edgeloop.Socket's CPU share), so
// a slow or silent peer holds no slot, and a flood of them cannot stop
// anyone else's handshake.
package cpugate

import "runtime"

// Gate is a number of slots; Enter takes one, Leave gives it back.
type Gate struct {
	slots chan struct{}
}

// New makes a gate of n slots (at least one).
func New(n int) *Gate {
	return &Gate{slots: make(chan struct{}, max(n, 1))}
}

// Handshakes is the gate every TLS handshake of the data plane goes
// through: the kiosk-facing front door's and the server legs'. Two per CPU
// the process may use: enough to keep every CPU busy while one waits on the
// scheduler, few enough that nothing waits behind more than that.
var Handshakes = New(2 * runtime.GOMAXPROCS(0))

// Enter waits for a slot, or until done is closed (false: no slot taken).
func (g *Gate) Enter(done <-chan struct{}) bool {
	select {
	case g.slots <- struct{}{}:
		return true
	default:
	}
	select {
	case g.slots <- struct{}{}:
		return true
	case <-done:
		return false
	}
}

// Leave gives back a slot taken by Enter.
func (g *Gate) Leave() {
	<-g.slots
}

// InUse is how many slots are taken now (for tests and figures).
func (g *Gate) InUse() int { return len(g.slots) }
