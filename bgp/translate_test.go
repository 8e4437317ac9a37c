package bgp

import (
	"reflect"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/apiutil"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/routewarden/routewarden/validator"
)

// TestToRouteWireDecodingMatchesNative proves that reading unicast paths
// straight from the protobuf wire bytes gives exactly the route the general
// translation (GoBGP's native NLRI and attributes) gives.
func TestToRouteWireDecodingMatchesNative(t *testing.T) {
	v4 := bgp.NewIPAddrPrefix(24, "10.244.1.0")
	v6 := bgp.NewIPv6AddrPrefix(64, "fd00:10:244:1::")
	attrs := func(as ...bgp.PathAttributeInterface) []*anypb.Any {
		out, err := apiutil.MarshalPathAttributes(as)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	nlri := func(n bgp.AddrPrefixInterface) *anypb.Any {
		a, err := apiutil.MarshalNLRI(n)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	fam4 := &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
	fam6 := &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}
	asPath := bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{
		bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65001, 4200000000}),
		bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SET, []uint32{65002, 65003}),
	})
	for _, tc := range []struct {
		name string
		path *api.Path
	}{
		{"ipv4 with next hop, AS path, communities", &api.Path{Family: fam4, Nlri: nlri(v4), NeighborIp: "127.0.1.11",
			SourceId: "10.0.0.11", SourceAsn: 65001, Identifier: 7, Pattrs: attrs(bgp.NewPathAttributeOrigin(0), asPath,
				bgp.NewPathAttributeNextHop("10.0.0.11"), bgp.NewPathAttributeCommunities([]uint32{65001<<16 | 100, 42}))}},
		{"ipv4 stale, no attributes", &api.Path{Family: fam4, Nlri: nlri(v4), NeighborIp: "::ffff:127.0.1.11", Stale: true}},
		{"ipv4 withdrawal", &api.Path{Family: fam4, Nlri: nlri(v4), NeighborIp: "127.0.1.11", IsWithdraw: true,
			Pattrs: attrs(bgp.NewPathAttributeNextHop("10.0.0.11"))}},
		{"ipv6 MP_REACH with link-local", &api.Path{Family: fam6, Nlri: nlri(v6), NeighborIp: "fd00::11",
			SourceId: "10.0.0.11", Pattrs: attrs(bgp.NewPathAttributeOrigin(0), &bgp.PathAttributeMpReachNLRI{
				PathAttribute:    bgp.PathAttribute{Flags: bgp.BGP_ATTR_FLAG_OPTIONAL, Type: bgp.BGP_ATTR_TYPE_MP_REACH_NLRI},
				Nexthop:          []byte{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11},
				LinkLocalNexthop: []byte{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
				AFI:              bgp.AFI_IP6, SAFI: bgp.SAFI_UNICAST, Value: []bgp.AddrPrefixInterface{v6}})}},
		{"ipv4 over MP_REACH and NEXT_HOP", &api.Path{Family: fam4, Nlri: nlri(v4), NeighborIp: "127.0.1.11",
			Pattrs: attrs(bgp.NewPathAttributeNextHop("10.0.0.99"),
				bgp.NewPathAttributeMpReachNLRI("10.0.0.11", []bgp.AddrPrefixInterface{v4}))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := toRoute(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := toRouteNative(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("wire decoding:\n got %+v\nwant %+v", got, want)
			}
			if !got.Prefix.IsValid() || (!tc.path.IsWithdraw && len(tc.path.Pattrs) > 0 && !got.NextHop.IsValid()) {
				t.Errorf("incomplete route %+v", got)
			}
		})
	}
}

// TestToRouteRejectsGarbage proves a corrupt NLRI is an error, not a route.
func TestToRouteRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{{0x0a}, {0x08, 0x18, 0x12, 0x03, 'x', 'y', 'z'}, {0x08, 0x40, 0x12, 0x08, '1', '0', '.', '0', '.', '0', '.', '0'}} {
		p := &api.Path{Nlri: &anypb.Any{TypeUrl: urlPrefix, Value: b}}
		if r, err := toRoute(p); err == nil {
			t.Errorf("% x decoded to %+v", b, r)
		}
	}
}

// TestToRouteRejectsBadASPath proves a corrupt AS path segment is an error,
// not an AS path silently cut short.
func TestToRouteRejectsBadASPath(t *testing.T) {
	nlri, err := apiutil.MarshalNLRI(bgp.NewIPAddrPrefix(24, "10.244.1.0"))
	if err != nil {
		t.Fatal(err)
	}
	good := []byte{0x0a, 0x05, 0x08, 0x02, 0x12, 0x01, 0x64} // segment {type 2, numbers [100]}
	for _, tc := range []struct {
		name  string
		value []byte
	}{
		{"truncated varint in the only segment", []byte{0x0a, 0x01, 0x10}},
		{"truncated numbers in the second segment", append(append([]byte(nil), good...), 0x0a, 0x02, 0x12, 0x05)},
		{"bad tag in a segment", []byte{0x0a, 0x01, 0x00}},
		{"truncated segment", []byte{0x0a, 0x05, 0x08}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &api.Path{Nlri: nlri, NeighborIp: "127.0.1.11",
				Pattrs: []*anypb.Any{{TypeUrl: urlASPath, Value: tc.value}}}
			if r, err := toRoute(p); err == nil {
				t.Errorf("% x decoded to %+v", tc.value, r)
			} else {
				t.Log(err)
			}
		})
	}
	p := &api.Path{Nlri: nlri, Pattrs: []*anypb.Any{{TypeUrl: urlASPath, Value: good}}}
	if r, err := toRoute(p); err != nil || !reflect.DeepEqual(r.ASPath, []uint32{100}) {
		t.Errorf("a good AS path: %+v, %v", r, err)
	}
}

// BenchmarkToRoute compares the wire decoding of a typical path with the
// general translation through GoBGP's native types.
func BenchmarkToRoute(b *testing.B) {
	nlri, _ := apiutil.MarshalNLRI(bgp.NewIPAddrPrefix(28, "10.1.2.16"))
	attrs, _ := apiutil.MarshalPathAttributes([]bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0),
		bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{65010})}),
		bgp.NewPathAttributeNextHop("100.64.0.1"), bgp.NewPathAttributeLocalPref(100)})
	p := &api.Path{Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}, Nlri: nlri, Pattrs: attrs,
		NeighborIp: "127.0.0.2", SourceId: "127.0.0.2", SourceAsn: 65010}
	for _, tc := range []struct {
		name string
		f    func(*api.Path) (validator.Route, error)
	}{{"wire", toRoute}, {"native", toRouteNative}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tc.f(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
