package validator

import (
	"net/netip"
	"strings"
	"testing"
)

// TestAttributeMismatchCommunities: a node's own pod CIDR or announced VIP
// must carry exactly the communities and large communities its
// advertisements set, and on iBGP their local preference; the message shows
// expected and received, the hint names overlapping advertisements.
func TestAttributeMismatchCommunities(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	web := svcSpec{name: "shop/web", vips: []string{"172.16.100.10"}, endpoints: []string{"node1"}, announced: true}
	pods := &AttributeIntent{Communities: []string{"65010:100", "65535:65281"}, LargeCommunities: []string{"65010:1:1"},
		LocalPrefs: []uint32{200}, Advertisements: []string{"pods"}}
	vip := &AttributeIntent{Communities: []string{"65010:200"}, Advertisements: []string{"svc-a", "svc-b"}}
	c := withServices(cluster(IPAMClusterPool, pool, n1, n2), web)
	c.NodeASNs = map[string][]uint32{"node1": {65010}, "node2": {65010}}
	c.Advertised = &AdvertisedAttributes{NodeGroup: map[string]int{"node1": 0, "node2": 1}, Groups: []AdvertisedGroup{
		{PodCIDR: pods, VIPs: map[netip.Addr]*AttributeIntent{addr("172.16.100.10"): vip}}, {}}}
	// path is a route of prefix@nexthop learnt on the session with the
	// next hop, with AS path as, communities std and large.
	path := func(spec string, as []uint32, std, large []string, pref ...uint32) Route {
		r := routes(spec)[0]
		r.ASPath, r.Communities, r.LargeCommunities, r.Peer = as, std, large, r.NextHop
		if len(pref) > 0 {
			r.LocalPref, r.HasLocalPref = pref[0], true
		}
		return r
	}
	ebgp := []uint32{65010}
	// postPolicy is r as a ToR holds it after its inbound policy (BMP post-policy).
	postPolicy := func(r Route) Route { r.Unshare().PostPolicy = true; return r }
	// relayed is r as a ToR relayed it over a session of role tor.
	relayed := func(r Route) Route { r.Unshare().Relayed = true; return r }
	podStd, podLarge := []string{"65535:65281", "65010:100"}, []string{"65010:1:1"}
	for _, tc := range []struct {
		name  string
		route Route
		want  string // "" for no finding, else what the message and hint contain, "|"-separated
	}{
		{name: "as told, in another order", route: path("10.244.1.0/24@10.0.0.11", ebgp, podStd, podLarge)},
		{name: "iBGP with the local preference", route: path("10.244.1.0/24@10.0.0.11", nil, podStd, podLarge, 200)},
		{name: "node without intent", route: path("10.244.2.0/24@10.0.0.12", ebgp, nil, nil)},
		{name: "missing community", route: path("10.244.1.0/24@10.0.0.11", ebgp, []string{"65010:100"}, podLarge),
			want: "communities 65010:100, expected 65010:100 65535:65281|Missing 65535:65281.|attributes of CiliumBGPAdvertisement pods"},
		{name: "no communities at all", route: path("10.244.1.0/24@10.0.0.11", ebgp, nil, nil),
			want: "communities none, expected 65010:100 65535:65281; large communities none, expected 65010:1:1|" +
				"Missing 65010:100 65535:65281 65010:1:1."},
		{name: "extra community", route: path("10.244.1.0/24@10.0.0.11", ebgp, append(podStd, "65010:999"), podLarge),
			want: "communities 65010:100 65010:999 65535:65281, expected 65010:100 65535:65281|Not expected: 65010:999."},
		{name: "wrong large community", route: path("10.244.1.0/24@10.0.0.11", ebgp, podStd, []string{"65010:1:2"}),
			want: "large communities 65010:1:2, expected 65010:1:1|Missing 65010:1:1. Not expected: 65010:1:2."},
		{name: "iBGP with another local preference", route: path("10.244.1.0/24@10.0.0.11", nil, podStd, podLarge, 100),
			want: "local preference 100, expected 200"},
		{name: "iBGP without local preference", route: path("10.244.1.0/24@10.0.0.11", nil, podStd, podLarge),
			want: "local preference none, expected 200"},
		{name: "eBGP: local preference not judged", route: path("10.244.1.0/24@10.0.0.11", ebgp, podStd, podLarge, 100)},
		{name: "wrong origin and communities: one finding", route: path("10.244.1.0/24@10.0.0.11", []uint32{65099}, nil, podLarge),
			want: "origin AS 65099, expected 65010; communities none, expected 65010:100 65535:65281|localASN"},
		{name: "overlapping advertisements named", route: path("172.16.100.10/32@10.0.0.11", ebgp, nil, nil),
			want: "communities none, expected 65010:200|The CiliumBGPAdvertisements svc-a, svc-b overlap|#35721"},
		{name: "VIP as told", route: path("172.16.100.10/32@10.0.0.11", ebgp, []string{"65010:200"}, nil)},
		{name: "post-policy: community added by the ToR's policy", route: postPolicy(path("10.244.1.0/24@10.0.0.11", ebgp,
			append(podStd, "65000:666"), podLarge))},
		{name: "post-policy: communities and local preference stripped",
			route: postPolicy(path("10.244.1.0/24@10.0.0.11", nil, nil, nil, 100))},
		{name: "post-policy: wrong origin AS still judged",
			route: postPolicy(path("10.244.1.0/24@10.0.0.11", []uint32{65099}, nil, nil)),
			want:  "origin AS 65099|Expected origin AS 65010, received 65099"},
		{name: "relayed by a ToR: community added by its policy", route: relayed(path("10.244.1.0/24@10.0.0.11",
			[]uint32{65000, 65010}, append(podStd, "65000:666"), nil))},
		{name: "relayed by a ToR: communities and local preference stripped",
			route: relayed(path("10.244.1.0/24@10.0.0.11", nil, nil, nil, 100))},
		{name: "relayed by a ToR: wrong origin AS still judged",
			route: relayed(path("10.244.1.0/24@10.0.0.11", []uint32{65000, 65099}, nil, nil)),
			want:  "origin AS 65099|Expected origin AS 65010, received 65099"},
		{name: "pre-policy or direct: community added, judged",
			route: path("10.244.1.0/24@10.0.0.11", ebgp, append(podStd, "65000:666"), podLarge),
			want:  "Not expected: 65000:666."},
		{name: "another node's CIDR: foreign-cidr's", route: path("10.244.1.0/24@10.0.0.12", ebgp, nil, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) { checkAttributeFinding(t, c, tc.route, tc.want) })
	}
}

// checkAttributeFinding checks attribute-mismatch on route alone: no
// finding for want "", else one whose message and hint hold every
// "|"-separated part of want.
func checkAttributeFinding(t *testing.T, c *Cluster, route Route, want string) {
	t.Helper()
	var fs []Finding
	attributeMismatch{}.Check(NewSnapshot(c, []Route{route}, PolicyView{}, Options{}), func(f Finding) { fs = append(fs, f) })
	if want == "" {
		if len(fs) > 0 {
			t.Fatalf("findings %+v, want none", fs)
		}
		return
	}
	if len(fs) != 1 {
		t.Fatalf("%d findings %+v, want one", len(fs), fs)
	}
	for _, part := range strings.Split(want, "|") {
		if !strings.Contains(fs[0].Message+" "+fs[0].Hint, part) {
			t.Errorf("finding lacks %q:\n%s\n%s", part, fs[0].Message, fs[0].Hint)
		}
	}
}

// TestAttributeIntentLocalPref: where several advertisements set a
// localPreference, Cilium applies the largest: only that one is expected.
func TestAttributeIntentLocalPref(t *testing.T) {
	in := &AttributeIntent{LocalPrefs: []uint32{100, 300}, Advertisements: []string{"a", "b"}}
	for _, tc := range []struct {
		name string
		attr Attributes
		want string // "" for no difference
	}{
		{name: "the largest", attr: Attributes{LocalPref: 300, HasLocalPref: true}},
		{name: "a smaller one", attr: Attributes{LocalPref: 100, HasLocalPref: true}, want: "local preference 100, expected 300"},
		{name: "none", attr: Attributes{}, want: "local preference none, expected 300"},
		{name: "eBGP: not judged", attr: Attributes{ASPath: []uint32{65010}, LocalPref: 100, HasLocalPref: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, d := range in.diffs(&tc.attr) {
				got = append(got, d.String())
			}
			if strings.Join(got, "; ") != tc.want {
				t.Errorf("diffs %q, want %q", got, tc.want)
			}
		})
	}
}
