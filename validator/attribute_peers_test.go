package validator

import (
	"net/netip"
	"testing"
)

// TestAttributeMismatchPerPeer: Cilium applies advertisements per peer and
// per family. Where a node's two peers (the collector at 192.0.2.1, a ToR
// at 192.0.2.2) are told different communities for its pod CIDR, a path is
// judged against its own peer's intent when its peer is known (the address
// the node sent it to, its session's local address: Attributes.Local, the
// ToR's peering address whatever address its BMP session comes from), else
// only on what both are told alike (the large community),
// and the hint says what was not judged. An IPv6 pod CIDR is judged
// against its family's intent.
func TestAttributeMismatchPerPeer(t *testing.T) {
	collector, tor := addr("192.0.2.1"), addr("192.0.2.2")
	n := n1
	n.cilium = []string{"10.244.1.0/24", "fd00:244:1::/64"}
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16", "fd00:244::/48"}, n)
	c.NodeASNs = map[string][]uint32{"node1": {65010}}
	toCollector := &AttributeIntent{Communities: []string{"65010:100"}, LargeCommunities: []string{"65010:1:1"},
		Advertisements: []string{"pods-rw"}}
	toToR := &AttributeIntent{Communities: []string{"65010:200"}, LargeCommunities: []string{"65010:1:1"},
		Advertisements: []string{"pods-tor"}}
	agreed := &AttributeIntent{Communities: []string{"65010:100"}, LargeCommunities: []string{"65010:1:1"},
		Advertisements: []string{"pods-rw", "pods-tor"}, Disputed: []string{AttrCommunities}}
	v6 := &AttributeIntent{Communities: []string{"65010:600"}, Advertisements: []string{"pods-v6"}}
	c.Advertised = &AdvertisedAttributes{NodeGroup: map[string]int{"node1": 0}, Groups: []AdvertisedGroup{{
		PodCIDR: agreed, PodCIDR6: v6, Peers: map[netip.Addr]*AdvertisedGroup{
			collector: {PodCIDR: toCollector, PodCIDR6: v6}, tor: {PodCIDR: toToR, PodCIDR6: v6}}}}}
	// A path of node1's session whose local end is local (BMP: monitored by router).
	path := func(prefix string, router, local netip.Addr, std, large []string) Route {
		next := addr("10.0.0.11")
		return Route{Prefix: pfx(prefix), Attributes: &Attributes{NextHop: next, Peer: next, Router: router, Local: local,
			ASPath: []uint32{65010}, Communities: std, LargeCommunities: large}}
	}
	large := []string{"65010:1:1"}
	none, bmpSource := netip.Addr{}, addr("198.51.100.2") // the ToR's BMP session comes from its management address
	for _, tc := range []struct {
		name  string
		route Route
		want  string // "" for no finding, else what the message and hint contain, "|"-separated
	}{
		{name: "BMP from the ToR: the ToR's communities", route: path("10.244.1.0/24", bmpSource, tor, []string{"65010:200"}, large)},
		{name: "BMP from the ToR: the collector's communities are wrong there",
			route: path("10.244.1.0/24", bmpSource, tor, []string{"65010:100"}, large),
			want:  "communities 65010:100, expected 65010:200|CiliumBGPAdvertisement pods-tor"},
		{name: "BMP from the ToR at its peering address", route: path("10.244.1.0/24", tor, tor, []string{"65010:200"}, large)},
		{name: "direct session to the collector", route: path("10.244.1.0/24", none, collector, []string{"65010:100"}, large)},
		{name: "direct session to the collector: the ToR's communities are wrong here",
			route: path("10.244.1.0/24", none, collector, []string{"65010:200"}, large),
			want:  "communities 65010:200, expected 65010:100"},
		{name: "peer unknown: communities not judged", route: path("10.244.1.0/24", none, none, []string{"65010:200"}, large)},
		{name: "BMP, local address no peer's: communities not judged",
			route: path("10.244.1.0/24", tor, addr("192.0.2.9"), []string{"65010:999"}, large)},
		{name: "peer unknown: what both are told alike is judged",
			route: path("10.244.1.0/24", none, none, []string{"65010:200"}, nil),
			want:  "large communities none, expected 65010:1:1|Not judged: communities: the node's peers"},
		{name: "IPv6 pod CIDR: its family's intent", route: path("fd00:244:1::/64", none, none, []string{"65010:600"}, nil)},
		{name: "IPv6 pod CIDR: the IPv4 family's communities are wrong there",
			route: path("fd00:244:1::/64", none, none, []string{"65010:100"}, large),
			want:  "communities 65010:100, expected 65010:600; large communities 65010:1:1, expected none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkAttributeFinding(t, c, tc.route, tc.want)
		})
	}
}

// TestAttributeMismatchSeparate: two peers each sent their own advertisement
// with the same attributes are no overlap: the hint does not say so.
func TestAttributeMismatchSeparate(t *testing.T) {
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1)
	c.Advertised = &AdvertisedAttributes{NodeGroup: map[string]int{"node1": 0}, Groups: []AdvertisedGroup{{
		PodCIDR: &AttributeIntent{Communities: []string{"65010:100"}, Advertisements: []string{"pods-a", "pods-b"},
			Separate: true}}}}
	r := routes("10.244.1.0/24@10.0.0.11")[0]
	r.Peer, r.ASPath = r.NextHop, []uint32{65010}
	checkAttributeFinding(t, c, r, "communities none, expected 65010:100|CiliumBGPAdvertisement pods-a, pods-b with what")
	c.Advertised.Groups[0].PodCIDR.Separate = false
	checkAttributeFinding(t, c, r, "The CiliumBGPAdvertisements pods-a, pods-b overlap")
}
