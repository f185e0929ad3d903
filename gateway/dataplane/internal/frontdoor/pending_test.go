package frontdoor

import (
	"sync/atomic"
	"testing"
	"time"
)

// placeFrom admits a place and counts its evictions.
func placeFrom(t *testing.T, pool *pendingPool, address string, evictions *atomic.Int32) *pendingPlace {
	t.Helper()
	place := pool.admit(address)
	place.attach(func() { evictions.Add(1) })
	return place
}

func TestPendingSourcesAreIPv4AddressesAndIPv6Slash64s(t *testing.T) {
	for address, source := range map[string]string{
		"192.0.2.7":                   "192.0.2.7",
		"[::ffff:192.0.2.7]:443":      "192.0.2.7",
		"2001:db8:1:2::1":             "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::9]:8443": "2001:db8:1:2::/64",
		"fe80::1%eth0":                "fe80::/64",
		"unknown":                     "unknown",
	} {
		if got := pendingSource(address); got != source {
			t.Errorf("pendingSource(%q) = %q, want %q", address, got, source)
		}
	}
}

func TestASourceAtItsShareGivesUpItsOwnOldestPlace(t *testing.T) {
	pool := newPendingPool(10, 2)
	var a1, a2, b1 atomic.Int32
	first := placeFrom(t, pool, "2001:db8:1:2::1", &a1)
	placeFrom(t, pool, "2001:db8:1:2::2", &a2)
	placeFrom(t, pool, "192.0.2.9", &b1)
	placeFrom(t, pool, "2001:db8:1:2::3", new(atomic.Int32))
	waitFor(t, func() bool { return a1.Load() == 1 })
	if a2.Load() != 0 || b1.Load() != 0 || pool.count() != 3 || pool.evicted.Load() != 1 {
		t.Fatalf("evicted %d %d %d, %d held", a1.Load(), a2.Load(), b1.Load(), pool.count())
	}
	first.release() // given up already: nothing changes
	if pool.count() != 3 {
		t.Fatalf("%d held", pool.count())
	}
}

func TestAFullPoolTakesTheLargestHoldersOldestNeverTheNewcomers(t *testing.T) {
	pool := newPendingPool(4, 3)
	evictions := make([]atomic.Int32, 4)
	for i := range 3 {
		placeFrom(t, pool, "192.0.2.1", &evictions[i])
	}
	placeFrom(t, pool, "192.0.2.2", &evictions[3])
	var display atomic.Int32
	granted := placeFrom(t, pool, "10.0.0.7", &display)
	waitFor(t, func() bool { return evictions[0].Load() == 1 })
	placeFrom(t, pool, "192.0.2.2", new(atomic.Int32))
	waitFor(t, func() bool { return evictions[1].Load() == 1 })
	if display.Load() != 0 || evictions[3].Load() != 0 {
		t.Fatal("the display's place or the smaller holder's was taken")
	}
	granted.release()
	if pool.count() != 3 {
		t.Fatalf("%d held after the display's grant", pool.count())
	}
}

func TestAPlaceEvictedBeforeItsUpgradeClosesItsSocketOnAttach(t *testing.T) {
	pool := newPendingPool(1, 1)
	early := pool.admit("192.0.2.1")
	pool.admit("192.0.2.1")
	var closed atomic.Int32
	early.attach(func() { closed.Add(1) })
	waitFor(t, func() bool { return closed.Load() == 1 })
}

// waitFor: evictions close sockets in their own goroutines.
func waitFor(t *testing.T, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatal("not within the wait")
		}
		time.Sleep(time.Millisecond)
	}
}
