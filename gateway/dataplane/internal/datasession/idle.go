package datasession

import (
	"sync/atomic"
	"time"

	"lanterna/dataplane/internal/rpc"
	"lanterna/dataplane/internal/sessionerr"
)

// minIdleCheck: idle checks closer together than this are not worth a timer (relaySession.ts).
const minIdleCheck = time.Second

// idleWatch is the idle deadline (relay.idleTimeoutMs): both legs' readers
// touch lastActive with each message (an atomic store, no timer per
// message), and one timer per session checks it (checkIdle). The timer is
// made before the state moves to relaying, so finish, from any goroutine,
// sees it; nil when there is no idle timeout.
type idleWatch struct {
	lastActive atomic.Int64
	timer      *time.Timer
}

// touch: traffic at now (the engine's clock).
func (w *idleWatch) touch(now int64) { w.lastActive.Store(now) }

// arm starts the first check a whole timeout from now.
func (w *idleWatch) arm(timeout time.Duration) {
	if w.timer != nil {
		w.timer.Reset(timeout)
	}
}

func (w *idleWatch) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
}

// checkIdle: the idle timer's one check; rearmed for the time left, never per message.
func (s *session) checkIdle() {
	if s.life.ended.Load() {
		return
	}
	idle := s.ms(s.engine.options.Relay.IdleTimeoutMs)
	idleFor := time.Duration(s.engine.now() - s.idle.lastActive.Load())
	if idleFor >= idle {
		s.finish(end{reason: rpc.ReasonError, err: sessionerr.New(sessionerr.PhaseRelay, sessionerr.CodeTimeout,
			"no traffic for "+itoa(s.engine.options.Relay.IdleTimeoutMs)+" ms").WithDetail("phase", sessionerr.PhaseRelay)})
		return
	}
	s.idle.timer.Reset(max(idle-idleFor, minIdleCheck))
}
