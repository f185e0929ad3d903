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
// then (HandOff) a descriptor of its own, out of Go's poller.
package edgeloop

import (
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
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
	// the last read came back shorter than asked: the socket was empty then
	drained bool
	serve   func(buf []byte) bool
}

// NewSocket wraps the connection the handshake runs over.
func NewSocket(conn net.Conn) *Socket { return &Socket{Conn: conn, fd: -1} }

// HandOff takes the socket out of Go's poller: a duplicate descriptor kept,
// the Go connection (tcp, the one under Conn) closed; the socket lives on in
// the duplicate. Reads and writes use the descriptor from then on.
func (s *Socket) HandOff(tcp *net.TCPConn) error {
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
	s.mu.Unlock()
	return nil
}

// Drained marks the socket as read to the end: the next Read waits for the
// loop instead of reading (records the handshake took in with it are still
// returned by TLS first).
func (s *Socket) Drained() { s.drained = true }

func (s *Socket) handedOff() bool { return s.fd >= 0 }

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
		if int(n) < len(b) {
			s.drained = true
		}
		return int(n), nil
	}
}

// writeStallLimit: how long a write waits for a peer that does not read.
const writeStallLimit = 15 * time.Second

func (s *Socket) Write(b []byte) (int, error) {
	if !s.handedOff() {
		return s.Conn.Write(b)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, net.ErrClosed
	}
	written := 0
	for written < len(b) {
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(s.fd), uintptr(unsafe.Pointer(&b[written])), uintptr(len(b)-written))
		switch errno {
		case 0:
			written += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			// rare (small messages, loopback buffers): wait for room, other sockets on hold
			if err := waitWritable(s.fd, writeStallLimit); err != nil {
				return written, err
			}
		default:
			return written, os.NewSyscallError("write", errno)
		}
	}
	return written, nil
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
		if s != nil {
			s.drained = false
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
	event := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | -syscall.EPOLLET, Fd: int32(fd)}
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
