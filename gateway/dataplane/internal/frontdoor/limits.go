package frontdoor

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
)

// connectionLimits counts open TCP connections, in all, per source address
// and per IPv6 /64, as the Node listener does (server.maxConnections and
// connectionLimits.ts): a connection beyond any is dropped at accept. The /64
// has its own, larger cap (perNetwork): one host picks addresses from its
// whole /64, but a LAN's displays share one too.
type connectionLimits struct {
	max, perAddress int
	// perNetwork: connections from one IPv6 /64 (0: none)
	perNetwork int
	mu         sync.Mutex
	total      int
	byAddress  map[string]int
	byNetwork  map[string]int
	refused    atomic.Uint64
}

func newConnectionLimits(max, perAddress int) *connectionLimits {
	return &connectionLimits{max: max, perAddress: perAddress, byAddress: map[string]int{}, byNetwork: map[string]int{}}
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
	network, isIPv6 := ipv6Network(address)
	if isIPv6 && l.perNetwork > 0 && l.byNetwork[network] >= l.perNetwork {
		l.refused.Add(1)
		return "network-connections-full"
	}
	l.total++
	l.byAddress[address]++
	if isIPv6 {
		l.byNetwork[network]++
	}
	return ""
}

// ipv6Network is an IPv6 address's /64 (pendingSource's key); false for anything else.
func ipv6Network(address string) (string, bool) {
	parsed, err := netip.ParseAddr(address)
	if err != nil || !parsed.Is6() || parsed.Is4In6() {
		return "", false
	}
	return pendingSource(address), true
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
	if network, isIPv6 := ipv6Network(address); isIPv6 {
		if left := l.byNetwork[network] - 1; left > 0 {
			l.byNetwork[network] = left
		} else {
			delete(l.byNetwork, network)
		}
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
