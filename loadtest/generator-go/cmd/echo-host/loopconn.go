package main

import (
	"crypto/tls"
	"errors"

	"lanterna/dataplane/edgeloop"
)

// loopConn is an established connection answered by the server's event loop
// (internal/edgeloop): no goroutine of its own.
type loopConn struct {
	under     *edgeloop.Socket
	secure    *tls.Conn
	responder responder
	server    *echoServer
}

// answerReady answers every whole request read until a read would wait;
// false once the connection is dropped.
func (c *loopConn) answerReady(buf []byte) bool {
	for {
		n, err := c.secure.Read(buf)
		if n > 0 {
			out, answerErr := c.responder.answer(buf[:n])
			if answerErr != nil {
				c.drop()
				return false
			}
			if len(out) > 0 {
				if _, writeErr := c.secure.Write(out); writeErr != nil {
					c.drop()
					return false
				}
			}
		}
		if err != nil {
			if errors.Is(err, edgeloop.ErrWouldBlock) {
				return true
			}
			c.drop()
			return false
		}
	}
}

func (c *loopConn) drop() {
	c.server.loop.Remove(c.under)
	c.server.untrack(c)
}

// Close (the server's close) shuts the socket down; the loop sees the end and drops it.
func (c *loopConn) Close() error { return c.under.Shutdown() }
