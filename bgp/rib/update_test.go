package rib

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/routewarden/routewarden/bgp/wire"
)

// writeRecorder records what RouteMonitoring writes, one line a call.
type writeRecorder struct{ got []string }

func (w *writeRecorder) Update(p Peer, b *Paths) {
	w.got = append(w.got, fmt.Sprintf("update %s peer=%s nh=%s as=%v +%v -%v", p.Address, b.Attrs.Peer,
		b.Attrs.NextHop, b.Attrs.ASPath, b.Announced, b.Withdrawn))
}

func (w *writeRecorder) EndOfRIB(p Peer, family string, isV6 bool) {
	w.got = append(w.got, fmt.Sprintf("eor %s %s v6=%v", p.Address, family, isV6))
}

// TestRouteMonitoringApply: the one applier the route feed and the BMP
// station share writes an UPDATE's unicast and MP parts apart, each with its
// own next hop, attributes Loc-RIB paths to the router and keeps only those
// it originates, and leaves a monitored peer's unspecified next hop unset.
func TestRouteMonitoringApply(t *testing.T) {
	node, tor := netip.MustParseAddr("10.0.0.11"), netip.MustParseAddr("10.0.0.1")
	nlri := func(p string) []NLRI { return []NLRI{{Prefix: netip.MustParsePrefix(p)}} }
	for _, tc := range []struct {
		name    string
		peer    Peer
		typ     uint8
		u       wire.Update
		want    []string
		ignored []string
	}{
		{name: "a direct peer's unicast and MP parts", peer: Direct(node),
			u: wire.Update{Announced: nlri("10.244.1.0/24"), NextHop: node, MPWithdrawn: nlri("fd00:1::/64"),
				MPNextHop: netip.IPv6Unspecified(), ASPath: []uint32{65010}},
			want: []string{"update 10.0.0.11 peer=10.0.0.11 nh=10.0.0.11 as=[65010] +[{10.244.1.0/24 0}] -[]",
				"update 10.0.0.11 peer=10.0.0.11 nh=:: as=[65010] +[] -[{fd00:1::/64 0}]"}},
		{name: "a monitored peer's unspecified next hop", peer: Peer{Router: tor, Address: node},
			u:    wire.Update{MPAnnounced: nlri("fd00:1::/64"), MPNextHop: netip.IPv6Unspecified(), EoR: []string{"ipv6-unicast"}},
			want: []string{"update 10.0.0.11 peer=10.0.0.11 nh=invalid IP as=[] +[{fd00:1::/64 0}] -[]", "eor 10.0.0.11 ipv6-unicast v6=true"}},
		{name: "a Loc-RIB's own and learned paths", peer: Peer{Router: tor, Type: peerTypeLocRIB}, typ: peerTypeLocRIB,
			u:    wire.Update{Announced: nlri("10.244.2.0/24"), NextHop: tor, ASPath: []uint32{65010}, OtherFamilies: 2},
			want: []string{}, ignored: []string{"other-family 2", "loc-rib-learned 1"}},
		{name: "a Loc-RIB's own path", peer: Peer{Router: tor, Type: peerTypeLocRIB}, typ: peerTypeLocRIB,
			u:    wire.Update{Announced: nlri("10.244.2.0/24"), NextHop: netip.IPv4Unspecified()},
			want: []string{"update invalid IP peer=10.0.0.1 nh=invalid IP as=[] +[{10.244.2.0/24 0}] -[]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &writeRecorder{got: []string{}}
			var ignored []string
			rm := NewRouteMonitoring(w, func(reason string, n int) { ignored = append(ignored, fmt.Sprint(reason, " ", n)) })
			rm.Apply(tc.peer, wire.PeerHeader{Type: tc.typ, Addr: tc.peer.Address, AS: 65010}, &tc.u)
			if !slices.Equal(w.got, tc.want) {
				t.Errorf("wrote\n%q\nwant\n%q", w.got, tc.want)
			}
			if !slices.Equal(ignored, tc.ignored) {
				t.Errorf("ignored %q, want %q", ignored, tc.ignored)
			}
		})
	}
}
