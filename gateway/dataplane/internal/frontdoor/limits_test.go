package frontdoor

import "testing"

func TestIPv6ConnectionsCountPerAddressAndPerSlash64(t *testing.T) {
	limits := newConnectionLimits(100, 2)
	limits.perNetwork = 3
	for _, step := range []struct{ address, want string }{
		{"2001:db8:1:2::1", ""},
		{"2001:db8:1:2::1", ""},
		{"2001:db8:1:2::1", "address-connections-full"},
		{"2001:db8:1:2::2", ""},
		// a fresh address of the same /64: the /64 is full
		{"2001:db8:1:2::3", "network-connections-full"},
		{"2001:db8:1:3::1", ""},
		// IPv4 has no /64: only its address counts
		{"192.0.2.1", ""},
		{"192.0.2.2", ""},
		{"192.0.2.3", ""},
	} {
		if got := limits.admit(step.address); got != step.want {
			t.Fatalf("admit(%s) = %q, want %q", step.address, got, step.want)
		}
	}
	limits.release("2001:db8:1:2::1")
	if got := limits.admit("2001:db8:1:2::9"); got != "" {
		t.Fatalf("a released place of the /64 was not given back: %q", got)
	}
	if limits.open() != 7 {
		t.Fatalf("%d open", limits.open())
	}
}
