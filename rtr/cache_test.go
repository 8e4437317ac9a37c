package rtr

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/routewarden/routewarden/validator/roa"
)

// TestCacheSince: a Serial Query gets the net change since its serial, over
// several deltas; a serial the cache no longer has is a Cache Reset.
func TestCacheSince(t *testing.T) {
	r := func(s string) roa.ROA {
		p := netip.MustParsePrefix(s)
		return roa.ROA{Prefix: p, MaxLen: uint8(p.Bits()), ASN: 1}
	}
	a, b, c := r("10.0.1.0/24"), r("10.0.2.0/24"), r("10.0.3.0/24")
	// Ten more ROAs in every set: deltas stay cheaper than the set, so the cache keeps them all.
	var base []roa.ROA
	for i := range 10 {
		base = append(base, r(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 1, byte(i), 0}), 24).String()))
	}
	var ca cache
	for _, set := range [][]roa.ROA{{a}, {a, b}, {a}, {a, c}, {c}} { // serials 1 to 5 (0 is no set yet)
		ca.publish(append(slices.Clone(set), base...))
	}
	if ca.publish(append([]roa.ROA{c}, base...)) {
		t.Error("publishing the same set moved the serial on")
	}
	for _, tc := range []struct {
		from                uint32
		withdrawn, announce []string
		ok                  bool
	}{
		{5, nil, nil, true},
		{4, []string{"10.0.1.0/24"}, nil, true},
		{2, []string{"10.0.1.0/24", "10.0.2.0/24"}, []string{"10.0.3.0/24"}, true},
		{1, []string{"10.0.1.0/24"}, []string{"10.0.3.0/24"}, true}, // b came and went
		{9, nil, nil, false},
	} {
		w, n, cur, ok := ca.since(ca.session, tc.from)
		if ok != tc.ok || cur != 5 || !slices.Equal(prefixes(w), tc.withdrawn) || !slices.Equal(prefixes(n), tc.announce) {
			t.Errorf("since %d: withdrawn %v announced %v at %d (%v), want %v %v", tc.from, w, n, cur, ok, tc.withdrawn, tc.announce)
		}
	}
	if _, _, _, ok := ca.since(ca.session+1, 4); ok {
		t.Error("another session's serial answered incrementally")
	}
}

func prefixes(rs []roa.ROA) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Prefix.String())
	}
	return out
}
