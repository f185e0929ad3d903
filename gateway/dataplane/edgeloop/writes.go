package edgeloop

// A Socket's writes: before the hand-off the Go connection's (within
// LimitWriteStall's limit when one is set); after it raw writes, which with
// a backlog kept (KeepBacklog) never wait: what the peer has no room for
// waits in a capped backlog that the loop flushes, and its high and low
// marks are the owner's backpressure.

import (
	"errors"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"

	"lanterna/dataplane/rawsocket"
)

// KeepBacklog makes writes after the hand-off keep what the peer has no
// room for, instead of waiting; the loop sends it as room comes. Once the
// backlog has passed high bytes (Pressed), relieved runs on the loop's
// goroutine, with the loop's read buffer, when it is down to low. A write
// that would take the backlog past limit bytes (0: no limit) fails with
// ErrBacklogFull and shuts the socket down (Overflowed): the owner's
// brake (not reading the other leg) cannot hold what the gateway writes on
// its own behalf (TLS key update answers, pongs) for a peer that never
// reads. Before Add.
func (s *Socket) KeepBacklog(high, low, limit int, relieved func(buf []byte)) {
	s.keep, s.high, s.low, s.cap, s.relieved = true, high, low, limit, relieved
}

// ErrBacklogFull: the peer left more unread than the backlog may hold.
var ErrBacklogFull = errors.New("the peer stopped reading: its backlog is full")

// Overflowed says whether a write found the backlog full (the socket is shut down since).
func (s *Socket) Overflowed() bool { return s.overflowed.Load() }

// ErrWriteStalled: a write before the hand-off made no progress within the
// socket's write limit; the connection is closed. A timeout, and
// os.ErrDeadlineExceeded for errors.Is.
var ErrWriteStalled net.Error = writeStalled{}

type writeStalled struct{}

func (writeStalled) Error() string        { return "the peer took nothing within the write deadline" }
func (writeStalled) Timeout() bool        { return true }
func (writeStalled) Temporary() bool      { return false }
func (writeStalled) Is(target error) bool { return target == os.ErrDeadlineExceeded }

// LimitWriteStall gives every write before the hand-off a deadline: limit
// from its start, or the caller's own deadline when sooner. A write that
// runs into the limit closes the Go connection under the socket (what a
// TLS connection's Close cannot do while its writer is blocked inside a
// Read, answering a key update) and fails with ErrWriteStalled, as every
// write after it. After the hand-off a write never waits (a backlog) or
// waits at most limit for room. Before the first write.
func (s *Socket) LimitWriteStall(limit time.Duration) { s.stall = limit }

// Stalled says whether a write ran into the write limit.
func (s *Socket) Stalled() bool { return s.stalled.Load() }

// Backlog is how many written bytes wait for the peer's room.
func (s *Socket) Backlog() int { return int(s.backlogBytes.Load()) }

// Pressed: the backlog passed the high mark and has not yet come down to the low one.
func (s *Socket) Pressed() bool { return s.pressed.Load() }

// Pauses counts the writes that found the peer without room (a backlog
// begun, or a wait), the handshake's connection's own count included.
func (s *Socket) Pauses() uint64 {
	own := s.pauses.Load()
	if counter, ok := s.Conn.(interface{ Pauses() uint64 }); ok {
		return own + counter.Pauses()
	}
	return own
}

// writeStallLimit: how long a write waits for a peer that does not read.
const writeStallLimit = 15 * time.Second

func (s *Socket) Write(b []byte) (int, error) {
	if !s.handedOff() {
		if s.stall > 0 {
			return s.writeWithin(b)
		}
		return s.Conn.Write(b)
	}
	if s.keep {
		return s.writeOrKeep(b)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, net.ErrClosed
	}
	written := 0
	for {
		n, err := writeSome(s.fd, b[written:])
		written += n
		if err != nil || written == len(b) {
			return written, err
		}
		// rare (small messages, loopback buffers): wait for room, other sockets on hold
		limit := writeStallLimit
		if s.stall > 0 {
			limit = min(limit, s.stall)
		}
		if err := waitWritable(s.fd, limit); err != nil {
			return written, err
		}
	}
}

// writeWithin is a write before the hand-off under the write limit.
func (s *Socket) writeWithin(b []byte) (int, error) {
	if s.stalled.Load() {
		return 0, ErrWriteStalled
	}
	s.deadlineMu.Lock()
	deadline, ours := time.Now().Add(s.stall), true
	if own := s.ownDeadline; !own.IsZero() && own.Before(deadline) {
		deadline, ours = own, false
	}
	_ = s.Conn.SetWriteDeadline(deadline)
	s.deadlineMu.Unlock()
	n, err := s.Conn.Write(b)
	if err != nil && ours && errors.Is(err, os.ErrDeadlineExceeded) {
		s.stalled.Store(true)
		// whoever waits on this connection (a TLS reader answering a key update, its Close) is freed now
		_ = s.Conn.Close()
		return n, ErrWriteStalled
	}
	return n, err
}

// writeOrKeep writes what the socket takes now and keeps the rest behind
// whatever is kept already (order is the stream's).
func (s *Socket) writeOrKeep(b []byte) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, net.ErrClosed
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	written := 0
	if len(s.backlog) == 0 {
		n, err := writeSome(s.fd, b)
		if err != nil {
			return n, err
		}
		if written = n; written == len(b) {
			return written, nil
		}
		s.pauses.Add(1)
	}
	if s.cap > 0 && len(s.backlog)+len(b)-written > s.cap {
		// nothing more is kept: the peer is cut, alone (the loop sees the shutdown, the owner reads the reason)
		if s.overflowed.CompareAndSwap(false, true) {
			_ = syscall.Shutdown(s.fd, syscall.SHUT_RDWR)
		}
		return written, ErrBacklogFull
	}
	s.backlog = append(s.backlog, b[written:]...)
	s.backlogBytes.Store(int64(len(s.backlog)))
	if len(s.backlog) > s.high {
		s.pressed.Store(true)
	}
	return len(b), nil
}

// writeSome writes until the socket is full; EAGAIN is not an error here.
func writeSome(fd int, b []byte) (int, error) {
	written := 0
	for written < len(b) {
		n, errno := rawsocket.Call(syscall.SYS_WRITE, uintptr(fd), b[written:])
		switch errno {
		case 0:
			written += n
		case syscall.EAGAIN:
			return written, nil
		default:
			return written, os.NewSyscallError("write", errno)
		}
	}
	return written, nil
}

// flush sends what the backlog holds as far as the socket takes it (the
// loop's goroutine, on a writable edge); the owner hears when it is low again.
func (s *Socket) flush(buf []byte) {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return
	}
	s.writeMu.Lock()
	if len(s.backlog) == 0 {
		s.writeMu.Unlock()
		s.mu.RUnlock()
		return
	}
	n, err := writeSome(s.fd, s.backlog)
	if err != nil {
		// the read side sees the end too; the owner learns it there
		n = len(s.backlog)
	}
	rest := copy(s.backlog, s.backlog[n:])
	s.backlog = s.backlog[:rest]
	// a burst's room is not kept for the connection's life
	if rest == 0 && cap(s.backlog) > 64<<10 {
		s.backlog = nil
	}
	s.backlogBytes.Store(int64(rest))
	relieve := rest <= s.low && s.pressed.Load()
	if relieve {
		s.pressed.Store(false)
	}
	s.writeMu.Unlock()
	s.mu.RUnlock()
	if relieve && s.relieved != nil {
		s.relieved(buf)
	}
}

func waitWritable(fd int, limit time.Duration) error {
	type pollFd struct {
		fd             int32
		events, revent int16
	}
	const pollOut = 0x4
	p := pollFd{fd: int32(fd), events: pollOut}
	n, _, errno := syscall.Syscall(syscall.SYS_POLL, uintptr(unsafe.Pointer(&p)), 1, uintptr(limit.Milliseconds()))
	if errno != 0 && errno != syscall.EINTR {
		return os.NewSyscallError("poll", errno)
	}
	if n == 0 && errno == 0 {
		return errors.New("peer stopped reading")
	}
	return nil
}
