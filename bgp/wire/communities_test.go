package wire_test

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/bgp/wire"
)

// TestDecodeCommunities: standard and large communities and LOCAL_PREF
// decode to their text forms, and are regular; an UPDATE without them leaves
// none from the one before.
func TestDecodeCommunities(t *testing.T) {
	base := bgptest.Attrs{NextHop: netip.MustParseAddr("10.0.0.11"), ASPath: []uint32{65010}}
	all := base
	all.LocalPref, all.Communities = 200, []uint32{65000<<16 | 100, 0xffffff01}
	all.LargeCommunities = [][3]uint32{{4200000000, 1, 2}, {65000, 0, 4294967295}}
	for _, tc := range []struct {
		name         string
		attrs        bgptest.Attrs
		std, large   []string
		pref         uint32
		hasLocalPref bool
	}{
		{name: "all", attrs: all, std: []string{"65000:100", "65535:65281"},
			large: []string{"4200000000:1:2", "65000:0:4294967295"}, pref: 200, hasLocalPref: true},
		{name: "none", attrs: base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := bgptest.PackUpdates([]netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")}, tc.attrs)
			if err != nil || len(msgs) != 1 {
				t.Fatalf("%d messages, %v", len(msgs), err)
			}
			u := wire.Update{Communities: []string{"1:1"}, LargeCommunities: []string{"1:1:1"}, HasLocalPref: true}
			if err := u.Decode(msgs[0], wire.Options{}); err != nil {
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
