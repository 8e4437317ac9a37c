package wire_test

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/bgp/wire"
)

// FuzzDecodeAgreesWithGoBGP: Decode never panics, and an UPDATE it finds
// regular GoBGP parses and validates without error, to the same prefixes,
// next hop and AS path (the route feed trusts Decode only on those).
func FuzzDecodeAgreesWithGoBGP(f *testing.F) {
	p := netip.MustParsePrefix("10.244.1.0/24")
	msgs, _ := bgptest.PackUpdates([]netip.Prefix{p, netip.MustParsePrefix("fd00:10:244:1::/64")}, attrs)
	msgs = append(msgs, bgptest.Withdraws([]netip.Prefix{p}, attrs)...)
	for _, k := range bgptest.Kinds {
		msgs = append(msgs, bgptest.Broken(k, p, attrs))
	}
	for _, m := range msgs {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		var u wire.Update
		if err := u.Decode(msg, wire.Options{}); err != nil || u.Irregular != "" {
			return
		}
		m, err := gobgp.ParseBGPMessage(msg)
		if err != nil {
			t.Fatalf("regular for Decode, GoBGP cannot parse it: %v", err)
		}
		body := m.Body.(*gobgp.BGPUpdate)
		families := map[gobgp.Family]gobgp.BGPAddPathMode{gobgp.RF_IPv4_UC: 0, gobgp.RF_IPv6_UC: 0}
		if ok, err := gobgp.ValidateUpdateMsg(body, families, true, false, false); !ok {
			if slices.Contains([]string{"Address-family"}, fmt.Sprint(err)[:min(14, len(fmt.Sprint(err)))]) {
				return // another family: GoBGP disables it, Decode counts it in OtherFamilies
			}
			t.Fatalf("regular for Decode, invalid for GoBGP: %v", err)
		}
		var got, want []string
		for _, n := range append(slices.Clone(u.Announced), u.MPAnnounced...) {
			got = append(got, "+"+n.Prefix.String())
		}
		for _, n := range append(slices.Clone(u.Withdrawn), u.MPWithdrawn...) {
			got = append(got, "-"+n.Prefix.String())
		}
		for _, n := range body.NLRI {
			want = append(want, "+"+masked(n.NLRI.String()))
		}
		var as []uint32
		for _, a := range body.PathAttributes {
			switch a := a.(type) {
			case *gobgp.PathAttributeMpReachNLRI:
				for _, n := range a.Value {
					want = append(want, "+"+masked(n.NLRI.String()))
				}
			case *gobgp.PathAttributeAsPath:
				for _, s := range a.Value {
					as = append(as, s.GetAS()...)
				}
			case *gobgp.PathAttributeNextHop:
				if nh := a.Value.Unmap(); nh != u.NextHop {
					t.Errorf("next hop %s, GoBGP %s", u.NextHop, nh)
				}
			}
		}
		for _, n := range body.WithdrawnRoutes {
			want = append(want, "-"+masked(n.NLRI.String()))
		}
		for _, a := range body.PathAttributes {
			if mp, ok := a.(*gobgp.PathAttributeMpUnreachNLRI); ok {
				for _, n := range mp.Value {
					want = append(want, "-"+masked(n.NLRI.String()))
				}
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("prefixes %q, GoBGP %q", got, want)
		}
		if !slices.Equal(u.ASPath, as) && !(len(u.ASPath) == 0 && len(as) == 0) {
			t.Errorf("AS path %v, GoBGP %v", u.ASPath, as)
		}
	})
}

func masked(s string) string {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return s
	}
	return p.Masked().String()
}
