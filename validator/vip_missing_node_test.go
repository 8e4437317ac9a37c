package validator

import "testing"

func TestVIPMissingNode(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	web := svcSpec{name: "shop/web", vips: []string{"172.16.100.10"}, endpoints: []string{"node1"}, announced: true}
	local := web
	local.local, local.endpoints = true, []string{"node1", "node2", "node3!"}
	notAnnounced := web
	notAnnounced.announced = false
	noEndpoints := web
	noEndpoints.endpoints = []string{"node1!"}
	bgp := withBGP
	n3down := n3
	n3down.notReady = true
	runRuleCases(t, vipMissingNode{}, []ruleCase{
		{name: "every BGP node announces", cluster: bgp(withServices(cluster(IPAMClusterPool, pool, n1, n2, n3), web),
			"node1", "node2", "node3"),
			routes: routes("172.16.100.10/32@10.0.0.11", "172.16.100.10/32@10.0.0.12", "172.16.100.10/32@10.0.0.13")},
		{name: "a BGP node does not announce: an ECMP path missing",
			cluster: bgp(withServices(cluster(IPAMClusterPool, pool, n1, n2, n3), web), "node1", "node2", "node3"),
			routes:  routes("172.16.100.10/32@10.0.0.11", "172.16.100.10/32@10.0.0.13"),
			want:    []string{"172.16.100.10/32 node2 shop/web"}},
		{name: "a node the BGP configuration does not select is not expected",
			cluster: bgp(withServices(cluster(IPAMClusterPool, pool, n1, n2, n3), web), "node1", "node3"),
			routes:  routes("172.16.100.10/32@10.0.0.11", "172.16.100.10/32@10.0.0.13")},
		{name: "a NotReady node is not expected",
			cluster: bgp(withServices(cluster(IPAMClusterPool, pool, n1, n2, n3down), web), "node1", "node2", "node3"),
			routes:  routes("172.16.100.10/32@10.0.0.11", "172.16.100.10/32@10.0.0.12")},
		{name: "externalTrafficPolicy Local: only nodes with a ready endpoint",
			cluster: bgp(withServices(cluster(IPAMClusterPool, pool, n1, n2, n3), local), "node1", "node2", "node3"),
			routes:  routes("172.16.100.10/32@10.0.0.11"),
			want:    []string{"172.16.100.10/32 node2 shop/web"}},
		{name: "announced by nobody is missing-vip's",
			cluster: bgp(withServices(cluster(IPAMClusterPool, pool, n1, n2), web), "node1", "node2")},
		{name: "BGP nodes unknown: no judgement", cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2), web),
			routes: routes("172.16.100.10/32@10.0.0.11")},
		{name: "not selected for announcement",
			cluster: bgp(withServices(cluster(IPAMClusterPool, pool, n1, n2), notAnnounced), "node1", "node2"),
			routes:  routes("172.16.100.10/32@10.0.0.11")},
		{name: "no ready endpoint is vip-without-endpoints'",
			cluster: bgp(withServices(cluster(IPAMClusterPool, pool, n1, n2), noEndpoints), "node1", "node2"),
			routes:  routes("172.16.100.10/32@10.0.0.11")},
	})
}
