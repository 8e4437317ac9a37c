package wire_test

import (
	"net/netip"
	"slices"
	"testing"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"github.com/routewarden/routewarden/bgp/wire"
)

// TestDecodeCommunities: standard and large communities and LOCAL_PREF, as
// GoBGP packs them, decode to their text forms; an UPDATE without them leaves
// none from the one before.
func TestDecodeCommunities(t *testing.T) {
	nlri, err := gobgp.NewIPAddrPrefix(netip.MustParsePrefix("10.244.1.0/24"))
	if err != nil {
		t.Fatal(err)
	}
	nh, err := gobgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.11"))
	if err != nil {
		t.Fatal(err)
	}
	base := []gobgp.PathAttributeInterface{gobgp.NewPathAttributeOrigin(0),
		gobgp.NewPathAttributeAsPath([]gobgp.AsPathParamInterface{gobgp.NewAs4PathParam(2, []uint32{65010})}), nh}
	for _, tc := range []struct {
		name         string
		extra        []gobgp.PathAttributeInterface
		std, large   []string
		pref         uint32
		hasLocalPref bool
	}{
		{name: "all", extra: []gobgp.PathAttributeInterface{gobgp.NewPathAttributeLocalPref(200),
			gobgp.NewPathAttributeCommunities([]uint32{65000<<16 | 100, 0xffffff01}),
			gobgp.NewPathAttributeLargeCommunities([]*gobgp.LargeCommunity{gobgp.NewLargeCommunity(4200000000, 1, 2),
				gobgp.NewLargeCommunity(65000, 0, 4294967295)})},
			std: []string{"65000:100", "65535:65281"}, large: []string{"4200000000:1:2", "65000:0:4294967295"},
			pref: 200, hasLocalPref: true},
		{name: "none"},
		{name: "local-pref 0", extra: []gobgp.PathAttributeInterface{gobgp.NewPathAttributeLocalPref(0)},
			hasLocalPref: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := gobgp.NewBGPUpdateMessage(nil, append(slices.Clone(base), tc.extra...),
				[]gobgp.PathNLRI{{NLRI: nlri}}).Serialize()
			if err != nil {
				t.Fatal(err)
			}
			u := wire.Update{Communities: []string{"1:1"}, LargeCommunities: []string{"1:1:1"}, HasLocalPref: true}
			if err := u.Decode(msg, wire.Options{}); err != nil {
				t.Fatal(err)
			}
			if u.Irregular != "" {
				t.Errorf("irregular: %s", u.Irregular)
			}
			if !slices.Equal(u.Communities, tc.std) || !slices.Equal(u.LargeCommunities, tc.large) ||
				u.LocalPref != tc.pref || u.HasLocalPref != tc.hasLocalPref {
				t.Errorf("decoded communities %q, large %q, local pref %d (%v); want %q, %q, %d (%v)", u.Communities,
					u.LargeCommunities, u.LocalPref, u.HasLocalPref, tc.std, tc.large, tc.pref, tc.hasLocalPref)
			}
		})
	}
}
