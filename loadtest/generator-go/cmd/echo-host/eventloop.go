package main

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// eventLoop answers every established connection from one goroutine and one
// epoll set of its own, instead of a goroutine per connection waiting in Go's
// poller. Per request that saves the goroutine's wake-up and park and the
// read that finds the socket empty: Go's poller forgets readiness at every
// Read (it must try the read to know), while here an edge-triggered set
// keeps it, so a read shorter than its buffer ends the connection's turn.
// The set itself waits in Go's poller (an epoll descriptor is pollable), so
// the loop never blocks the one P the pinned process has; handshakes, the
// listener and streaming connections keep Go's own sockets.
type eventLoop struct {
	epfd   int
	poller syscall.RawConn
	mu     sync.Mutex
	// connections by descriptor (guarded by mu: handshake goroutines add)
	byFD   []*loopConn
	events []syscall.EpollEvent
	buf    []byte
	// bound once, so that a wait allocates nothing
	serveOnce func(fd uintptr) bool
	failed    error
}

// loopConn is a connection after its handshake: the TLS stream over
// handoffConn, which now reads and writes its own descriptor.
type loopConn struct {
	under     *handoffConn
	secure    *tls.Conn
	responder responder
	closed    bool // guarded by the loop's mu
	loop      *eventLoop
	server    *echoServer
}

func newEventLoop() (*eventLoop, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if err := syscall.SetNonblock(epfd, true); err != nil {
		_ = syscall.Close(epfd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	// non-blocking, so os.NewFile registers it with Go's poller
	file := os.NewFile(uintptr(epfd), "echo-host-epoll")
	poller, err := file.SyscallConn()
	if err != nil {
		_ = file.Close()
		return nil, err
	}
	l := &eventLoop{epfd: epfd, poller: poller, events: make([]syscall.EpollEvent, 256), buf: make([]byte, readBufferBytes)}
	l.serveOnce = l.serveReady
	go l.run(file)
	return l, nil
}

func (l *eventLoop) run(file *os.File) {
	defer file.Close()
	for l.failed == nil {
		if err := l.poller.Read(l.serveOnce); err != nil {
			return
		}
	}
}

// serveReady takes what the set has ready without waiting; false (nothing
// ready) sends the goroutine to wait in Go's poller until the set is readable.
func (l *eventLoop) serveReady(fd uintptr) bool {
	n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_WAIT, fd, uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
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
		var c *loopConn
		// a connection dropped earlier in this batch may have lent its number to a new one: closed ones are skipped
		if fd < len(l.byFD) && l.byFD[fd] != nil && !l.byFD[fd].closed {
			c = l.byFD[fd]
		}
		l.mu.Unlock()
		if c != nil {
			c.serve(l.buf)
		}
	}
	return true
}

// add hands an established connection to the loop.
func (l *eventLoop) add(c *loopConn) error {
	fd := c.under.fd
	l.mu.Lock()
	if fd >= len(l.byFD) {
		grown := make([]*loopConn, max(fd+1, 2*len(l.byFD)))
		copy(grown, l.byFD)
		l.byFD = grown
	}
	l.byFD[fd] = c
	l.mu.Unlock()
	// edge-triggered: what already arrived is reported at once
	event := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | -syscall.EPOLLET, Fd: int32(fd)}
	if err := syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_ADD, fd, &event); err != nil {
		l.drop(c)
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// drop ends a connection: out of the set, its descriptor closed once.
func (l *eventLoop) drop(c *loopConn) {
	l.mu.Lock()
	if c.closed {
		l.mu.Unlock()
		return
	}
	c.closed = true
	fd := c.under.fd
	if fd < len(l.byFD) && l.byFD[fd] == c {
		l.byFD[fd] = nil
	}
	_ = syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_DEL, fd, nil)
	_ = syscall.Close(fd)
	l.mu.Unlock()
	c.server.untrack(c)
}

// serve answers what a readiness event brought: every whole request read,
// until the socket is drained (the next edge brings the rest).
func (c *loopConn) serve(buf []byte) {
	c.under.drained = false
	c.answerBuffered(buf)
}

// answerBuffered answers requests until a read would wait; false once the
// connection is dropped.
func (c *loopConn) answerBuffered(buf []byte) bool {
	for {
		n, err := c.secure.Read(buf)
		if n > 0 {
			out, answerErr := c.responder.answer(buf[:n])
			if answerErr != nil {
				c.loop.drop(c)
				return false
			}
			if len(out) > 0 {
				if _, writeErr := c.secure.Write(out); writeErr != nil {
					c.loop.drop(c)
					return false
				}
			}
		}
		if err != nil {
			if errors.Is(err, errWouldBlock) {
				return true
			}
			c.loop.drop(c)
			return false
		}
	}
}

// Close (the server's close) shuts the socket down; the loop sees the end and drops it.
func (c *loopConn) Close() error {
	c.loop.mu.Lock()
	defer c.loop.mu.Unlock()
	if c.closed {
		return nil
	}
	return syscall.Shutdown(c.under.fd, syscall.SHUT_RDWR)
}

// wouldBlock: the loop's "nothing more to read now". A temporary net.Error,
// so crypto/tls keeps a partly read record for the next Read instead of
// failing the connection.
type wouldBlock struct{}

func (wouldBlock) Error() string   { return "would block" }
func (wouldBlock) Timeout() bool   { return true }
func (wouldBlock) Temporary() bool { return true }

var errWouldBlock net.Error = wouldBlock{}

// handoffConn is what the TLS stream runs over: the Go connection through the
// handshake, then (after handOff) its own non-blocking descriptor.
type handoffConn struct {
	net.Conn
	// -1 until handed off
	fd int
	// the last read came back shorter than asked: the socket was empty then,
	// and the next edge says when it is not (reset by the loop on each event)
	drained bool
}

func newHandoffConn(conn net.Conn) *handoffConn { return &handoffConn{Conn: conn, fd: -1} }

// handshakeConsumed: no bytes of the Connection Request's read are left to
// replay (prefixedConn), so the socket alone holds what comes next.
func (h *handoffConn) handshakeConsumed() bool {
	prefixed, ok := h.Conn.(*prefixedConn)
	return !ok || len(prefixed.prefix) == 0
}

// handOff takes a descriptor of the socket out of Go's poller: a duplicate
// kept, the Go connection closed (the socket lives on in the duplicate).
func (h *handoffConn) handOff(tcp *net.TCPConn) error {
	raw, err := tcp.SyscallConn()
	if err != nil {
		return err
	}
	var dupErr error
	if err := raw.Control(func(fd uintptr) {
		h.fd, dupErr = dupCloseOnExec(int(fd))
	}); err != nil {
		return err
	}
	if dupErr != nil {
		return os.NewSyscallError("fcntl", dupErr)
	}
	_ = tcp.Close()
	// the flag belongs to the shared file description, which Go made non-blocking; made sure of here
	return syscall.SetNonblock(h.fd, true)
}

func dupCloseOnExec(fd int) (int, error) {
	newFD, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(newFD), nil
}

func (h *handoffConn) Read(b []byte) (int, error) {
	if h.fd < 0 {
		return h.Conn.Read(b)
	}
	if len(b) == 0 {
		return 0, nil
	}
	if h.drained {
		return 0, errWouldBlock
	}
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(h.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch errno {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			h.drained = true
			return 0, errWouldBlock
		default:
			return 0, os.NewSyscallError("read", errno)
		}
		if n == 0 {
			return 0, io.EOF
		}
		if int(n) < len(b) {
			h.drained = true
		}
		return int(n), nil
	}
}

// writeStallLimit: how long a write may wait for a peer that does not read.
const writeStallLimit = handshakeTimeout

func (h *handoffConn) Write(b []byte) (int, error) {
	if h.fd < 0 {
		return h.Conn.Write(b)
	}
	written := 0
	for written < len(b) {
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(h.fd), uintptr(unsafe.Pointer(&b[written])), uintptr(len(b)-written))
		switch errno {
		case 0:
			written += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			// rare (small answers, loopback buffers): wait for room without the loop's other connections
			if err := waitWritable(h.fd, writeStallLimit); err != nil {
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
