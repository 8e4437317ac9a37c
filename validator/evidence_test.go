package validator

import (
	"net/netip"
	"slices"
	"testing"
)

// TestAttributeMismatchJudgesOnlyWhatTheSourceShows: a dump format that
// carries no communities (FRR's plain `show bgp ipv4 unicast json`), no
// local preference or no AS path gets no attribute-mismatch for them; the
// attributes it shows are judged still.
func TestAttributeMismatchJudgesOnlyWhatTheSourceShows(t *testing.T) {
	pods := &AttributeIntent{Communities: []string{"65010:100"}, LargeCommunities: []string{"65010:1:1"},
		LocalPrefs: []uint32{200}, Advertisements: []string{"pods"}}
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1)
	c.NodeASNs = map[string][]uint32{"node1": {65010}}
	c.Advertised = &AdvertisedAttributes{NodeGroup: map[string]int{"node1": 0},
		Groups: []AdvertisedGroup{{PodCIDR: pods, VIPs: map[netip.Addr]*AttributeIntent{}}}}
	path := func(as []uint32, unseen AttrSet) Route {
		r := routes("10.244.1.0/24@10.0.0.11")[0]
		r.ASPath, r.Unseen = as, unseen
		return r
	}
	for _, tc := range []struct {
		name  string
		route Route
		want  string
	}{
		{"communities shown: none is a mismatch", path([]uint32{65010}, 0),
			"communities none, expected 65010:100|large communities none, expected 65010:1:1"},
		{"no communities in the format", path([]uint32{65010}, UnseenCommunities|UnseenLargeCommunities), ""},
		{"only large communities unseen", path([]uint32{65010}, UnseenLargeCommunities), "communities none, expected 65010:100"},
		{"no local preference in the format (iBGP)", path(nil, UnseenCommunities|UnseenLargeCommunities|UnseenLocalPref), ""},
		{"no AS path in the format: iBGP cannot be told", path(nil, UnseenCommunities|UnseenLargeCommunities|UnseenASPath), ""},
		{"origin AS judged where shown", path([]uint32{65099}, UnseenCommunities|UnseenLargeCommunities), "origin AS 65099"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkAttributeFinding(t, c, tc.route, tc.want) })
	}
	rs := []Route{path([]uint32{65010}, UnseenCommunities|UnseenLargeCommunities|UnseenNextHop)}
	if got := Unjudged(c, rs).Names(); !slices.Equal(got, []string{"communities", "large communities", "next hop"}) {
		t.Errorf("Unjudged = %q", got)
	}
	if got := Unjudged(cluster(IPAMClusterPool, nil, n1), rs).Names(); !slices.Equal(got, []string{"next hop"}) {
		t.Errorf("Unjudged without intent = %q, want only the next hop", got)
	}
}
