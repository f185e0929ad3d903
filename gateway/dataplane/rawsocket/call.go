package rawsocket

import (
	"net"
	"syscall"
	"unsafe"
)

// Call makes one read(2) or write(2) (trap: syscall.SYS_READ or SYS_WRITE)
// of b on fd with RawSyscall, again when a signal interrupted it (EINTR).
// The one place the data plane's raw reads and writes are made: this
// package's Conn and edgeloop's handed-off sockets. EAGAIN comes back as
// errno, for the caller to wait on in its own way (Go's poller, an edge).
// b must not be empty.
func Call(trap, fd uintptr, b []byte) (int, syscall.Errno) {
	for {
		n, _, errno := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if errno != syscall.EINTR {
			return int(n), errno
		}
	}
}

// Raw is conn's descriptor access (SyscallConn) when conn is a TCP
// connection; ok is false for any other connection, or one already closed.
func Raw(conn net.Conn) (tcp *net.TCPConn, raw syscall.RawConn, ok bool) {
	tcp, ok = conn.(*net.TCPConn)
	if !ok {
		return nil, nil, false
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return nil, nil, false
	}
	return tcp, raw, true
}
