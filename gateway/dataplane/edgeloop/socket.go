package edgeloop

// A Socket's life and its reads: the Go connection through the handshake,
// then (HandOff) its own descriptor, read with raw system calls until a read
// would block (ErrWouldBlock).

import (
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"lanterna/dataplane/rawsocket"
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
	n, errno := rawsocket.Call(syscall.SYS_READ, uintptr(s.fd), b)
	switch errno {
	case 0:
	case syscall.EAGAIN:
		s.drained = true
		return 0, ErrWouldBlock
	default:
		return 0, os.NewSyscallError("read", errno)
	}
	if n == 0 {
		return 0, io.EOF
	}
	if n < len(b) && !s.ending {
		s.drained = true
	}
	return n, nil
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
