package datasession

import (
	"sync/atomic"

	"lanterna/dataplane/pdu"
)

// inputGate is the display's frames on their way to the server: whole PDUs
// in the stream's mode (X.224, NLA, then RDP), and input PDUs only while
// the presenter allows it. mode is the display reader's; toRDP tells the
// server's reader that the display left NLA; allowed is Node's (SetInput).
type inputGate struct {
	mode  pdu.Mode
	toRDP atomic.Bool
	// allowed: the presenter lets the display control the computer (Engine.SetInput); off, input PDUs are dropped
	allowed atomic.Bool
}

// pass counts one binary message's whole PDUs and follows the stream's
// mode; in RDP it drops the input PDUs unless allowed. It returns what is
// left to send and how many PDUs that is; send false: nothing is left.
func (g *inputGate) pass(frame []byte) (out []byte, pdus int, send bool, err error) {
	count, next, err := pdu.CountWhole(frame, g.mode, 0)
	if err != nil {
		return nil, 0, false, err
	}
	if next != g.mode {
		g.mode = next
		if next == pdu.ModeRDP {
			g.toRDP.Store(true)
		}
	}
	// the presenter's permission, enforced here whatever the display page does (pdu/input.go)
	if g.mode == pdu.ModeRDP && !g.allowed.Load() {
		var dropped int
		frame, dropped = pdu.DropInput(frame)
		count -= dropped
		if len(frame) == 0 {
			return nil, 0, false, nil
		}
	}
	return frame, count, true, nil
}
