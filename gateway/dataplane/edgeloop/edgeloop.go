// Package edgeloop serves many established sockets from one goroutine and an
// edge-triggered epoll set of its own, instead of a goroutine per socket
// waiting in Go's poller.
//
// Why: per round trip, a goroutine per socket costs its wake-up and park and
// a read that finds the socket empty — Go's poller forgets readiness at every
// Read, so it must try the read to know. The loop's edge-triggered set keeps
// readiness: a read shorter than its buffer means the socket was empty then,
// and the next edge says when it is not. The set itself waits in Go's poller
// (an epoll descriptor is pollable), so the loop never holds the one P of a
// process pinned to one CPU while idle, and handshakes, listeners and other
// sockets keep Go's own poller.
//
// A Socket is what TLS runs over: the Go connection through the handshake,
// then (HandOff) a descriptor of its own, out of Go's poller. A socket that
// keeps a backlog (KeepBacklog: the data plane's relay legs) never makes its
// writer wait: what the peer has no room for waits in the socket and the
// loop sends it when there is room, so one slow reader holds up no other
// socket of the loop; its owner stops reading the other leg past a high
// water mark (the backpressure) and is told when the backlog is low again.
package edgeloop

import (
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// ErrWouldBlock is a Socket's "nothing more to read now". A temporary
// net.Error, so crypto/tls keeps a partly read record for the next Read
// instead of failing the connection.
var ErrWouldBlock net.Error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "would block" }
func (wouldBlock) Timeout() bool   { return true }
func (wouldBlock) Temporary() bool { return true }

// Socket is a net.Conn over a TCP connection that a Loop can take over.
// After HandOff, Read is for the loop's goroutine (or its owner before Add);
// Write may come from any goroutine, one at a time (crypto/tls serialises
// its writes).
type Socket struct {
	net.Conn
	// fd and closed: guarded by mu (a write or read never meets a descriptor
	// number that was closed and given to another socket)
	mu     sync.RWMutex
	fd     int
	closed bool
	// handed: fd is set (read without the lock by whoever asks which side of the hand-off it is)
	handed atomic.Bool
	// the last read came back shorter than asked: the socket was empty then
	drained bool
	// the peer's end (or our own shutdown) has been signalled: a short read
	// no longer means empty, since the end brings no further edge and must
	// be read (until EOF or an error) now
	ending bool
	serve  func(buf []byte) bool
	// loop: set by Add (Close, from any goroutine, takes the socket out of it)
	loop atomic.Pointer[Loop]
	// the backlog, when kept (KeepBacklog): guarded by writeMu
	keep           bool
	high, low, cap int
	relieved       func(buf []byte)
	writeMu        sync.Mutex
	backlog        []byte
	backlogBytes   atomic.Int64
	pressed        atomic.Bool
	overflowed     atomic.Bool
	pauses         atomic.Uint64
	// the write deadline (LimitWriteStall): stall is set before use; the
	// caller's own deadline (under deadlineMu) wins when it is sooner
	stall       time.Duration
	deadlineMu  sync.Mutex
	ownDeadline time.Time
	stalled     atomic.Bool
}

// NewSocket wraps the connection the handshake runs over.
func NewSocket(conn net.Conn) *Socket { return &Socket{Conn: conn, fd: -1} }

// TCP is the connection under a socket's Conn that HandOff takes: a
// *net.TCPConn, or a wrapper of one that has its SyscallConn.
type TCP interface {
	SyscallConn() (syscall.RawConn, error)
	Close() error
}

// HandOff takes the socket out of Go's poller: a duplicate descriptor kept,
// the Go connection (tcp, the one under Conn) closed; the socket lives on in
// the duplicate. Reads and writes use the descriptor from then on.
func (s *Socket) HandOff(tcp TCP) error {
	raw, err := tcp.SyscallConn()
	if err != nil {
		return err
	}
	var fd int
	var dupErr error
	if err := raw.Control(func(original uintptr) {
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, original, syscall.F_DUPFD_CLOEXEC, 0)
		fd = int(r)
		if errno != 0 {
			dupErr = os.NewSyscallError("fcntl", errno)
		}
	}); err != nil {
		return err
	}
	if dupErr != nil {
		return dupErr
	}
	_ = tcp.Close()
	// the flag belongs to the shared file description, which Go made non-blocking: made sure of
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return err
	}
	s.mu.Lock()
	s.fd = fd
	s.handed.Store(true)
	s.mu.Unlock()
	return nil
}

// Drained marks the socket as read to the end: the next Read waits for the
// loop instead of reading (records the handshake took in with it are still
// returned by TLS first).
func (s *Socket) Drained() { s.drained = true }

func (s *Socket) handedOff() bool { return s.handed.Load() }

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

// Close closes the Go connection before the hand-off; after it, takes the
// socket out of its loop (if it was added) and closes the descriptor, once.
func (s *Socket) Close() error {
	if !s.handedOff() {
		return s.Conn.Close()
	}
	if loop := s.loop.Load(); loop != nil {
		loop.Remove(s)
		return nil
	}
	closeOnce(s, nil)
	return nil
}

// Deadlines are the Go connection's until the hand-off; after it, the loop's
// owner times its phases itself (a read never waits, a write with a backlog
// neither).
func (s *Socket) SetDeadline(t time.Time) error {
	if s.handedOff() {
		return nil
	}
	s.noteWriteDeadline(t)
	return s.Conn.SetDeadline(t)
}

func (s *Socket) SetReadDeadline(t time.Time) error {
	if s.handedOff() {
		return nil
	}
	return s.Conn.SetReadDeadline(t)
}

func (s *Socket) SetWriteDeadline(t time.Time) error {
	if s.handedOff() {
		return nil
	}
	s.noteWriteDeadline(t)
	return s.Conn.SetWriteDeadline(t)
}

// noteWriteDeadline keeps the caller's own write deadline, which a write
// under LimitWriteStall takes when it is sooner than the limit.
func (s *Socket) noteWriteDeadline(t time.Time) {
	if s.stall > 0 {
		s.deadlineMu.Lock()
		s.ownDeadline = t
		s.deadlineMu.Unlock()
	}
}

func (s *Socket) Read(b []byte) (int, error) {
	if !s.handedOff() {
		return s.Conn.Read(b)
	}
	if len(b) == 0 {
		return 0, nil
	}
	if s.drained {
		return 0, ErrWouldBlock
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, net.ErrClosed
	}
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(s.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch errno {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			s.drained = true
			return 0, ErrWouldBlock
		default:
			return 0, os.NewSyscallError("read", errno)
		}
		if n == 0 {
			return 0, io.EOF
		}
		if int(n) < len(b) && !s.ending {
			s.drained = true
		}
		return int(n), nil
	}
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
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[written])), uintptr(len(b)-written))
		switch errno {
		case 0:
			written += int(n)
		case syscall.EINTR:
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

// Shutdown ends both directions of a handed-off socket without closing its
// descriptor (its loop sees the end and the owner removes it); before the
// hand-off it closes the Go connection.
func (s *Socket) Shutdown() error {
	if !s.handedOff() {
		return s.Conn.Close()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil
	}
	return syscall.Shutdown(s.fd, syscall.SHUT_RDWR)
}

// Loop is one goroutine serving its sockets' readiness.
type Loop struct {
	epfd   int
	poller syscall.RawConn
	mu     sync.Mutex
	// sockets by descriptor (guarded by mu: Add and Remove come from any goroutine)
	byFD   []*Socket
	events []syscall.EpollEvent
	buf    []byte
	// bound once, so that a wait allocates nothing
	serveOnce func(fd uintptr) bool
	failed    error
}

// New starts a loop whose serve callbacks get a read buffer of bufferBytes.
func New(bufferBytes int) (*Loop, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if err := syscall.SetNonblock(epfd, true); err != nil {
		_ = syscall.Close(epfd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	// non-blocking, so os.NewFile registers it with Go's poller
	file := os.NewFile(uintptr(epfd), "edgeloop")
	poller, err := file.SyscallConn()
	if err != nil {
		_ = file.Close()
		return nil, err
	}
	l := &Loop{epfd: epfd, poller: poller, events: make([]syscall.EpollEvent, 256), buf: make([]byte, bufferBytes)}
	l.serveOnce = l.serveReady
	go l.run(file)
	return l, nil
}

func (l *Loop) run(file *os.File) {
	defer file.Close()
	for l.failed == nil {
		if err := l.poller.Read(l.serveOnce); err != nil {
			return
		}
		// A batch served. While events keep coming the loop never parks, and
		// with one P nothing else would run (timers neither: the generator's
		// pacing wheel sent 10-50 ms late, until the runtime's 10 ms
		// preemption): let the others have their turn.
		runtime.Gosched()
	}
}

// serveReady takes what the set has ready without waiting; false (nothing
// ready) sends the goroutine to wait in Go's poller until the set is readable.
func (l *Loop) serveReady(epfd uintptr) bool {
	n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_WAIT, epfd, uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
	switch errno {
	case 0:
	case syscall.EINTR:
		return true
	default:
		l.failed = os.NewSyscallError("epoll_wait", errno)
		return true
	}
	if n == 0 {
		return false
	}
	for i := range int(n) {
		fd := int(l.events[i].Fd)
		l.mu.Lock()
		var s *Socket
		// one removed earlier in this batch may have lent its number to a new one: the table says who owns it now
		if fd < len(l.byFD) {
			s = l.byFD[fd]
		}
		l.mu.Unlock()
		if s == nil {
			continue
		}
		events := l.events[i].Events
		// flush looks under the writers' lock: a writer between its EAGAIN
		// and keeping the rest would otherwise lose this edge to a check
		// made without it
		if events&syscall.EPOLLOUT != 0 && s.keep {
			s.flush(l.buf)
		}
		if events&(syscall.EPOLLIN|syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0 {
			s.drained = false
			if events&(syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0 {
				s.ending = true
			}
			s.serve(l.buf)
		}
	}
	return true
}

// Add gives a handed-off socket to the loop: serve runs on the loop's
// goroutine whenever it may have something to read, with a buffer shared by
// all sockets (valid during the call), and reads until ErrWouldBlock.
// Whatever the socket already holds is reported at once.
func (l *Loop) Add(s *Socket, serve func(buf []byte) bool) error {
	s.serve = serve
	s.loop.Store(l)
	l.mu.Lock()
	s.mu.RLock()
	fd, closed := s.fd, s.closed
	s.mu.RUnlock()
	if fd < 0 || closed {
		l.mu.Unlock()
		return errors.New("socket not handed off or already removed")
	}
	if fd >= len(l.byFD) {
		grown := make([]*Socket, max(fd+1, 2*len(l.byFD)))
		copy(grown, l.byFD)
		l.byFD = grown
	}
	l.byFD[fd] = s
	l.mu.Unlock()
	mask := uint32(syscall.EPOLLIN | syscall.EPOLLRDHUP | -syscall.EPOLLET)
	if s.keep {
		// edge-triggered: a writable edge comes only after the socket was full
		mask |= syscall.EPOLLOUT
	}
	event := syscall.EpollEvent{Events: mask, Fd: int32(fd)}
	if err := syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_ADD, fd, &event); err != nil {
		l.Remove(s)
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// Remove takes a socket out of the loop (if it was in) and closes its
// descriptor, once; from any goroutine.
func (l *Loop) Remove(s *Socket) {
	l.mu.Lock()
	defer l.mu.Unlock()
	closeOnce(s, func(fd int) {
		if fd < len(l.byFD) && l.byFD[fd] == s {
			l.byFD[fd] = nil
			_ = syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_DEL, fd, nil)
		}
	})
}

// closeOnce closes a handed-off socket's descriptor once (before that, its Go
// connection), running before(fd) first under the socket's lock.
func closeOnce(s *Socket, before func(fd int)) {
	if !s.handedOff() {
		_ = s.Conn.Close()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if before != nil {
		before(s.fd)
	}
	_ = syscall.Close(s.fd)
}
