package validator

import "testing"

func TestAttributeMismatch(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	web := svcSpec{name: "shop/web", vips: []string{"172.16.100.10"}, endpoints: []string{"node1"}, announced: true}
	// withASNs is the two-node cluster with Cilium's local ASNs of each node.
	withASNs := func(asns map[string][]uint32) *Cluster {
		c := withServices(cluster(IPAMClusterPool, pool, n1, n2), web)
		c.NodeASNs = asns
		return c
	}
	both := map[string][]uint32{"node1": {65010}, "node2": {65012, 65013}}
	// path gives routes("prefix@nexthop") the AS path as.
	path := func(spec string, as ...uint32) Route {
		r := routes(spec)[0]
		r.ASPath = as
		return r
	}
	runRuleCases(t, attributeMismatch{}, []ruleCase{
		{name: "origin AS is the node's", cluster: withASNs(both),
			routes: []Route{path("10.244.1.0/24@10.0.0.11", 65000, 65010), path("10.244.2.0/24@10.0.0.12", 65013)}},
		{name: "wrong origin AS on node2's CIDR", cluster: withASNs(both),
			routes: []Route{path("10.244.1.0/24@10.0.0.11", 65010), path("10.244.2.0/24@10.0.0.12", 65010)},
			want:   []string{"10.244.2.0/24 node2 node2"}},
		{name: "announced VIP with a wrong origin", cluster: withASNs(both),
			routes: []Route{path("172.16.100.10/32@10.0.0.11", 65099)}, want: []string{"172.16.100.10/32 node1 node1"}},
		{name: "node without known ASNs", cluster: withASNs(map[string][]uint32{"node1": {65010}}),
			routes: []Route{path("10.244.2.0/24@10.0.0.12", 65099)}},
		{name: "no AS path (iBGP, Loc-RIB)", cluster: withASNs(both), routes: []Route{path("10.244.2.0/24@10.0.0.12")}},
		{name: "another node's CIDR: foreign-cidr's", cluster: withASNs(both),
			routes: []Route{path("10.244.1.0/24@10.0.0.12", 65099)}},
		{name: "graceful-restart path", cluster: withASNs(both), routes: []Route{
			{Prefix: pfx("10.244.2.0/24"), Attributes: &Attributes{NextHop: addr("10.0.0.12"), ASPath: []uint32{1}}, Stale: true}}},
	})
}
