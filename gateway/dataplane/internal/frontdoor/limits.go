package frontdoor

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
)

// connectionLimits counts open TCP connections, in all and per source
// address, as the Node listener does (server.maxConnections and
// connectionLimits.ts): a connection beyond either is dropped at accept.
type connectionLimits struct {
	max, perAddress int
	mu              sync.Mutex
	total           int
	byAddress       map[string]int
	refused         atomic.Uint64
}

func newConnectionLimits(max, perAddress int) *connectionLimits {
	return &connectionLimits{max: max, perAddress: perAddress, byAddress: map[string]int{}}
}

// admit counts conn, or says why not ("" when counted).
func (l *connectionLimits) admit(address string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.total >= l.max {
		l.refused.Add(1)
		return "connections-full"
	}
	if l.perAddress > 0 && l.byAddress[address] >= l.perAddress {
		l.refused.Add(1)
		return "address-connections-full"
	}
	l.total++
	l.byAddress[address]++
	return ""
}

func (l *connectionLimits) release(address string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if left := l.byAddress[address] - 1; left > 0 {
		l.byAddress[address] = left
	} else {
		delete(l.byAddress, address)
	}
}

func (l *connectionLimits) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// countedConn gives its place back when it is closed, once.
type countedConn struct {
	net.Conn
	address  string
	limits   *connectionLimits
	released atomic.Bool
}

// Unwrap: the connection under the count (the data session finds the relay's socket through it).
func (c *countedConn) Unwrap() net.Conn { return c.Conn }

func (c *countedConn) Close() error {
	if c.released.CompareAndSwap(false, true) {
		c.limits.release(c.address)
	}
	return c.Conn.Close()
}

// CanonicalAddress is a peer's IP as the gateway writes it (canonicalHost.ts):
// an IPv4-mapped IPv6 address as plain IPv4, without the port.
func CanonicalAddress(address net.Addr) string {
	if address == nil {
		return "unknown"
	}
	return CanonicalAddressString(address.String())
}

// CanonicalAddressString is CanonicalAddress of "host:port" (or a bare host).
func CanonicalAddressString(hostPort string) string {
	if parsed, err := netip.ParseAddrPort(hostPort); err == nil {
		return parsed.Addr().Unmap().WithZone("").String()
	}
	if parsed, err := netip.ParseAddr(hostPort); err == nil {
		return parsed.Unmap().WithZone("").String()
	}
	return hostPort
}
