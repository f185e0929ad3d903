package targetconn

import (
	"errors"
	"net"
	"syscall"
)

// peerGone tells whether the server closed or reset the connection while its
// certificate was being judged (Node's check of socket.destroyed after the
// verdict): a peek that neither blocks nor consumes what the server sent.
func peerGone(tcp *net.TCPConn) bool {
	raw, err := tcp.SyscallConn()
	if err != nil {
		return true
	}
	gone := false
	var buffer [1]byte
	controlErr := raw.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), buffer[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR):
		case err != nil:
			gone = true
		case n == 0:
			gone = true
		}
		// true: done, whatever we saw (never wait for readiness here)
		return true
	})
	return gone || controlErr != nil
}
