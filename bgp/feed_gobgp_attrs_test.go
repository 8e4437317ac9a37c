package bgp

import (
	"fmt"
	"net/netip"
	"testing"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"github.com/routewarden/routewarden/bgp/wire"
)

// TestDecodeLikeGoBGPAttributes: an UPDATE the route feed reads GoBGP's way
// gives the same communities, large communities and LOCAL_PREF as wire's own
// decoding, with and without them.
func TestDecodeLikeGoBGPAttributes(t *testing.T) {
	nlri, err := gobgp.NewIPAddrPrefix(netip.MustParsePrefix("10.244.1.0/24"))
	if err != nil {
		t.Fatal(err)
	}
	nh, err := gobgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.11"))
	if err != nil {
		t.Fatal(err)
	}
	s := &gobgpSession{opts: &gobgp.MarshallingOption{AddPath: map[gobgp.Family]gobgp.BGPAddPathMode{}},
		families: map[gobgp.Family]gobgp.BGPAddPathMode{gobgp.RF_IPv4_UC: gobgp.BGP_ADD_PATH_NONE}}
	for _, tc := range []struct {
		name  string
		extra []gobgp.PathAttributeInterface
		want  string
	}{
		{"all", []gobgp.PathAttributeInterface{gobgp.NewPathAttributeLocalPref(200),
			gobgp.NewPathAttributeCommunities([]uint32{65010<<16 | 100, 0xffffff01}),
			gobgp.NewPathAttributeLargeCommunities([]*gobgp.LargeCommunity{gobgp.NewLargeCommunity(65010, 1, 2)})},
			"[65010:100 65535:65281] [65010:1:2] 200 true"},
		{"none", nil, "[] [] 0 false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			attrs := append([]gobgp.PathAttributeInterface{gobgp.NewPathAttributeOrigin(0),
				gobgp.NewPathAttributeAsPath([]gobgp.AsPathParamInterface{gobgp.NewAs4PathParam(2, []uint32{65010})}), nh},
				tc.extra...)
			msg, err := gobgp.NewBGPUpdateMessage(nil, attrs, []gobgp.PathNLRI{{NLRI: nlri}}).Serialize()
			if err != nil {
				t.Fatal(err)
			}
			var own, theirs wire.Update
			if err := own.Decode(msg, wire.Options{}); err != nil {
				t.Fatal(err)
			}
			if err := s.decodeLikeGoBGP(msg, false, &theirs); err != nil {
				t.Fatal(err)
			}
			for _, u := range []*wire.Update{&own, &theirs} {
				got := fmt.Sprintf("%v %v %d %v", u.Communities, u.LargeCommunities, u.LocalPref, u.HasLocalPref)
				if got != tc.want {
					t.Errorf("decoded %s, want %s", got, tc.want)
				}
			}
		})
	}
}
