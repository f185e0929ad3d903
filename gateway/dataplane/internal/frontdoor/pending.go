package frontdoor

import (
	"container/list"
	"net/netip"
	"sync"
	"sync/atomic"
)

// pendingPool holds the places of the data sockets upgraded and not yet
// granted (limits.maxPendingSockets), per source: an IPv4 address or an IPv6
// /64 (a host picks addresses from its whole /64). Node keeps its control
// sockets the same way (gateway/src/api/pendingSockets.ts, which says why).
//
// No upgrade is refused for want of a place. A session token arrives after
// the upgrade, so nothing tells a display from a stranger here; time does: a
// display sends `open` within a round trip and leaves the pool, strangers
// stay. A newcomer from a source at its share (limits.perSourcePendingSockets)
// takes its own source's oldest place; a newcomer finding the pool full takes
// the oldest place of the source holding the most. Strangers can only churn
// their own places, and a display's socket, the newest, is the last to go.
type pendingPool struct {
	max, perSource int
	mu             sync.Mutex
	// order holds every *pendingPlace, oldest first
	order    *list.List
	bySource map[string]int
	evicted  atomic.Uint64
}

func newPendingPool(max, perSource int) *pendingPool {
	return &pendingPool{max: max, perSource: perSource, order: list.New(), bySource: map[string]int{}}
}

// pendingPlace is one data socket's place; eviction closes its socket.
type pendingPlace struct {
	pool    *pendingPool
	source  string
	element *list.Element
	mu      sync.Mutex
	closer  func()
	evicted bool
}

// admit holds a place for a socket from clientAddress, taking a stranger's when it must.
func (p *pendingPool) admit(clientAddress string) *pendingPlace {
	place := &pendingPlace{pool: p, source: pendingSource(clientAddress)}
	p.mu.Lock()
	var victim *pendingPlace
	switch {
	case p.perSource > 0 && p.bySource[place.source] >= p.perSource:
		victim = p.oldest(place.source)
	case p.max > 0 && p.order.Len() >= p.max:
		victim = p.oldestOfLargest()
	}
	if victim != nil {
		p.remove(victim)
		p.evicted.Add(1)
	}
	place.element = p.order.PushBack(place)
	p.bySource[place.source]++
	p.mu.Unlock()
	if victim != nil {
		victim.evict()
	}
	return place
}

// count is the places held now.
func (p *pendingPool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.order.Len()
}

func (p *pendingPool) oldest(source string) *pendingPlace {
	for element := p.order.Front(); element != nil; element = element.Next() {
		if place := element.Value.(*pendingPlace); place.source == source {
			return place
		}
	}
	return nil
}

func (p *pendingPool) oldestOfLargest() *pendingPlace {
	largest := 0
	for _, held := range p.bySource {
		largest = max(largest, held)
	}
	for element := p.order.Front(); element != nil; element = element.Next() {
		if place := element.Value.(*pendingPlace); p.bySource[place.source] == largest {
			return place
		}
	}
	return nil
}

// remove gives a place back; under p.mu. False when it was given back already.
func (p *pendingPool) remove(place *pendingPlace) bool {
	if place.element == nil {
		return false
	}
	p.order.Remove(place.element)
	place.element = nil
	if left := p.bySource[place.source] - 1; left > 0 {
		p.bySource[place.source] = left
	} else {
		delete(p.bySource, place.source)
	}
	return true
}

// release gives the place back (granted, or the socket ended); once, however often it is called.
func (place *pendingPlace) release() {
	place.pool.mu.Lock()
	defer place.pool.mu.Unlock()
	place.pool.remove(place)
}

// attach names what closes the place's socket once it is upgraded; a place
// evicted before that closes it at once.
func (place *pendingPlace) attach(closer func()) {
	place.mu.Lock()
	evicted := place.evicted
	if !evicted {
		place.closer = closer
	}
	place.mu.Unlock()
	if evicted {
		go closer()
	}
}

func (place *pendingPlace) evict() {
	place.mu.Lock()
	place.evicted = true
	closer := place.closer
	place.mu.Unlock()
	if closer != nil {
		// never in the admitting request's way: a peer that does not read must not stall it
		go closer()
	}
}

// pendingSource is the key a client's places count under: an IPv4 address
// as is, an IPv6 address by its /64 (as pinAttempts.ts's sourceKey).
func pendingSource(clientAddress string) string {
	address, err := netip.ParseAddr(CanonicalAddressString(clientAddress))
	if err != nil {
		return clientAddress
	}
	if address.Is4() {
		return address.String()
	}
	prefix, err := address.Prefix(64)
	if err != nil {
		return clientAddress
	}
	return prefix.String()
}
