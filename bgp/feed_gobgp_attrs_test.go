package bgp

import (
	"fmt"
	"net/netip"
	"testing"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/bgp/wire"
)

// TestDecodeLikeGoBGPAttributes: an UPDATE the route feed reads GoBGP's way
// gives the same communities, large communities and LOCAL_PREF as wire's own
// decoding, with and without them.
func TestDecodeLikeGoBGPAttributes(t *testing.T) {
	t.Parallel()
	s := &gobgpSession{opts: &gobgp.MarshallingOption{AddPath: map[gobgp.Family]gobgp.BGPAddPathMode{}},
		families: map[gobgp.Family]gobgp.BGPAddPathMode{gobgp.RF_IPv4_UC: gobgp.BGP_ADD_PATH_NONE}}
	base := bgptest.Attrs{NextHop: netip.MustParseAddr("10.0.0.11"), ASPath: []uint32{65010}}
	all := base
	all.LocalPref, all.Communities, all.LargeCommunities = 200, []uint32{65010<<16 | 100, 0xffffff01}, [][3]uint32{{65010, 1, 2}}
	for _, tc := range []struct {
		name  string
		attrs bgptest.Attrs
		want  string
	}{
		{"all", all, "[65010:100 65535:65281] [65010:1:2] 200 true"},
		{"none", base, "[] [] 0 false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := bgptest.PackUpdates([]netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")}, tc.attrs)
			if err != nil || len(msgs) != 1 {
				t.Fatalf("%d messages, %v", len(msgs), err)
			}
			var own, theirs wire.Update
			if err := own.Decode(msgs[0], wire.Options{}); err != nil {
				t.Fatal(err)
			}
			if withdrawn, err := s.decodeLikeGoBGP(msgs[0], false, &theirs); err != nil || withdrawn != nil {
				t.Fatal(withdrawn, err)
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
