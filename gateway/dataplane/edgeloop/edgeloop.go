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
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// yieldAfter is how long the loop serves without waiting in the poller before
// it lets the other goroutines run. Not after every batch: runtime.Gosched
// puts the loop at the back of the global run queue, which each P looks at
// only every 61st turn while its own queue is full. In a reconnect storm
// (hundreds of new sessions' goroutines runnable) every batch then waited
// there: a surviving worker's bystanders stalled up to 250 ms (issue 31,
// finding 7; 0.5 s of the loop's wait in 9 s in a trace, all of it in
// Gosched). A loop that parks in the poller between arrivals, as a relay
// does, never needs to yield; one kept busy yields at most every yieldAfter.
const yieldAfter = time.Millisecond

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
	// parked: the last wait found nothing ready (the goroutine waited in Go's
	// poller); busySince: when the loop last woke from such a wait or yielded
	parked    bool
	busySince time.Time
	// yields counts runtime.Gosched calls (tests read it)
	yields atomic.Uint64
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
	l := &Loop{epfd: epfd, poller: poller, events: make([]syscall.EpollEvent, 256), buf: make([]byte, bufferBytes), parked: true}
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
		// preemption): past yieldAfter, let the others have their turn.
		if time.Since(l.busySince) >= yieldAfter {
			l.yields.Add(1)
			runtime.Gosched()
			l.busySince = time.Now()
		}
	}
}

// serveReady takes what the set has ready without waiting; false (nothing
// ready) sends the goroutine to wait in Go's poller until the set is readable.
func (l *Loop) serveReady(epfd uintptr) bool {
	if l.parked {
		l.parked = false
		l.busySince = time.Now()
	}
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
		l.parked = true
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
