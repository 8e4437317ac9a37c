package rib

import (
	"net/netip"
	"testing"

	"github.com/routewarden/routewarden/bgp/wire"
)

// BenchmarkApplyPaths times the RIB's side of the route feed alone, without
// GoBGP: 1M /32s of one direct peer in UPDATEs of 800 through the
// Route-Monitoring applier, staged by the initial sync and published at
// End-of-RIB, then withdrawn (allocs/op stays in the thousands: none a path).
//
//	go test ./bgp/rib -run '^$' -bench BenchmarkApplyPaths -benchtime 3x -benchmem
func BenchmarkApplyPaths(b *testing.B) {
	const n, per = 1_000_000, 800
	nlris := make([]NLRI, n)
	for i := range nlris {
		nlris[i] = NLRI{Prefix: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32)}
	}
	peer, nh := netip.MustParseAddr("127.0.1.9"), netip.MustParseAddr("10.0.0.1")
	h := wire.PeerHeader{Addr: peer, AS: 65010, BGPID: peer}
	u := wire.Update{ASPath: []uint32{65010}, NextHop: nh}
	for b.Loop() {
		s := NewStore()
		rm := NewRouteMonitoring(s, nil)
		s.Up(Direct(peer), PeerInfo{Address: peer, Families: []string{"ipv4-unicast"}})
		for i := 0; i < n; i += per {
			u.Announced, u.Withdrawn = nlris[i:i+per], nil
			rm.Apply(Direct(peer), h, &u)
		}
		s.EndOfRIB(Direct(peer), "ipv4-unicast", false)
		for i := 0; i < n; i += per {
			u.Announced, u.Withdrawn = nil, nlris[i:i+per]
			rm.Apply(Direct(peer), h, &u)
		}
		if s.Len() != 0 {
			b.Fatal(s.Len())
		}
	}
}
