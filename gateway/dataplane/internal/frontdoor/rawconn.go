package frontdoor

import (
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// rawConn is a *net.TCPConn whose Read and Write make their system call with
// syscall.RawSyscall and wait in Go's poller only when the socket would block
// (the load side's loadtest/generator-go/internal/rawsocket, which has the
// profile: an ordinary system call leaves the P in "syscall" and, with one P,
// the runtime's monitor takes it back from writes that run the loopback's
// receive path — thread hand-offs on every round trip). A write that finds
// the socket full is the display not keeping up: counted as a pause, the
// Node engine's "server paused" (its kiosk socket above high water).
type rawConn struct {
	*net.TCPConn
	raw               syscall.RawConn
	readMu, writeMu   sync.Mutex
	readBuf, writeBuf []byte
	readN, writeN     int
	readErr, writeErr syscall.Errno
	wouldBlock        bool
	pauses            atomic.Uint64
	// bound once, so that a call allocates nothing
	readOnce, writeOnce func(fd uintptr) bool
}

// wrapRaw returns conn as a rawConn when it is a TCP connection, else conn itself.
func wrapRaw(conn net.Conn) net.Conn {
	tcp, ok := conn.(*net.TCPConn)
	if !ok {
		return conn
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return conn
	}
	c := &rawConn{TCPConn: tcp, raw: raw}
	c.readOnce = c.tryRead
	c.writeOnce = c.tryWrite
	return c
}

// Pauses counts writes that had to wait for the display to read.
func (c *rawConn) Pauses() uint64 { return c.pauses.Load() }

func (c *rawConn) tryRead(fd uintptr) bool {
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.readBuf[0])), uintptr(len(c.readBuf)))
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		c.readN, c.readErr = int(n), errno
		return true
	}
}

func (c *rawConn) tryWrite(fd uintptr) bool {
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.writeBuf[0])), uintptr(len(c.writeBuf)))
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			// counted when the wait begins: a display that never reads again is one pause
			if !c.wouldBlock {
				c.wouldBlock = true
				c.pauses.Add(1)
			}
			return false
		}
		c.writeN, c.writeErr = int(n), errno
		return true
	}
}

func (c *rawConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.readMu.Lock()
	defer c.readMu.Unlock()
	c.readBuf = b
	err := c.raw.Read(c.readOnce)
	c.readBuf = nil
	switch {
	case err != nil:
		// a deadline or a close: the poller's own errors
		return 0, err
	case c.readErr != 0:
		return 0, os.NewSyscallError("read", c.readErr)
	case c.readN == 0:
		return 0, io.EOF
	}
	return c.readN, nil
}

func (c *rawConn) Write(b []byte) (int, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.wouldBlock = false
	written := 0
	for written < len(b) {
		c.writeBuf = b[written:]
		err := c.raw.Write(c.writeOnce)
		c.writeBuf = nil
		if err != nil {
			return written, err
		}
		if c.writeErr != 0 {
			return written, os.NewSyscallError("write", c.writeErr)
		}
		written += c.writeN
	}
	return written, nil
}
