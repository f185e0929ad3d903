// Package rawsocket gives a TCP connection whose Read and Write make their
// system call with syscall.RawSyscall, without telling the scheduler, and
// wait in Go's poller only when the socket would block. The data plane's
// kiosk and server legs use it, and so do the load test's generator and echo
// host (loadtest/generator-go requires this module by a replace).
//
// Why: a goroutine in an ordinary system call leaves its P in the "syscall"
// state, and with one P (a process pinned to one CPU) the runtime's monitor
// thread keeps waking every 20 µs to take that P back from writes that run
// the loopback's receive path (~10 µs), handing it to another thread and
// back. In profiles at 400 KW v1 sessions the monitor's wake-ups and those
// hand-offs were a quarter of the echo host's CPU and 39 % of the
// generator's. Reads and writes on a non-blocking socket never block, so
// nothing is gained by releasing the P around them.
package rawsocket

import (
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

// Conn is a *net.TCPConn (deadlines, Close, CloseWrite, addresses as usual)
// with raw Read and Write. Safe for concurrent use as net.Conn is: a Write
// goes out whole before another starts. A write that finds the socket full
// is the peer not keeping up: counted as a pause (the data plane reports the
// display's as the Node engine's "server paused").
type Conn struct {
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

// Wrap returns conn as a *Conn when it is a TCP connection, else conn itself.
func Wrap(conn net.Conn) net.Conn {
	tcp, raw, ok := Raw(conn)
	if !ok {
		return conn
	}
	c := &Conn{TCPConn: tcp, raw: raw}
	c.readOnce = c.tryRead
	c.writeOnce = c.tryWrite
	return c
}

// Pauses counts writes that had to wait for the peer to read.
func (c *Conn) Pauses() uint64 { return c.pauses.Load() }

// tryRead and tryWrite are the poller's callbacks: false (EAGAIN) makes it
// wait for the socket and call again.
func (c *Conn) tryRead(fd uintptr) bool {
	c.readN, c.readErr = Call(syscall.SYS_READ, fd, c.readBuf)
	return c.readErr != syscall.EAGAIN
}

func (c *Conn) tryWrite(fd uintptr) bool {
	c.writeN, c.writeErr = Call(syscall.SYS_WRITE, fd, c.writeBuf)
	if c.writeErr != syscall.EAGAIN {
		return true
	}
	// counted when the wait begins: a peer that never reads again is one pause
	if !c.wouldBlock {
		c.wouldBlock = true
		c.pauses.Add(1)
	}
	return false
}

func (c *Conn) Read(b []byte) (int, error) {
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

func (c *Conn) Write(b []byte) (int, error) {
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
