package validator

import "testing"

func TestVIPWrongNode(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	local := svcSpec{name: "shop/web", vips: []string{"172.16.100.10"}, local: true, endpoints: []string{"node1", "node2!"}}
	clusterPolicy := local
	clusterPolicy.local = false
	down := local
	down.endpoints = []string{"node1!"}
	runRuleCases(t, vipWrongNode{}, []ruleCase{
		{name: "announced where the endpoint is", cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2, n3), local),
			routes: routes("172.16.100.10/32@10.0.0.11")},
		{name: "announced by nodes without a ready endpoint",
			cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2, n3), local),
			routes:  routes("172.16.100.10/32@10.0.0.11", "172.16.100.10/32@10.0.0.12", "172.16.100.10/32@10.0.0.13"),
			want:    []string{"172.16.100.10/32 node2 shop/web", "172.16.100.10/32 node3 shop/web"}},
		{name: "externalTrafficPolicy Cluster: any node", cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2), clusterPolicy),
			routes: routes("172.16.100.10/32@10.0.0.12")},
		{name: "no ready endpoint anywhere is vip-without-endpoints'",
			cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2), down), routes: routes("172.16.100.10/32@10.0.0.12")},
		{name: "from no current node is stale-route's", cluster: withServices(cluster(IPAMClusterPool, pool, n1), local),
			routes: routes("172.16.100.10/32@10.0.0.99")},
	})
}

// TestVIPsLeaveThePodCIDRRulesAlone: a Service's VIP outside every LoadBalancer
// pool is no out-of-range or unallocated route once the Services are known.
func TestVIPsLeaveThePodCIDRRulesAlone(t *testing.T) {
	c := withServices(cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1),
		svcSpec{name: "shop/web", vips: []string{"192.0.2.10", "10.244.200.10"}, endpoints: []string{"node1"}, announced: true})
	rs := routes("10.244.1.0/24@10.0.0.11", "192.0.2.10/32@10.0.0.11", "10.244.200.10/32@10.0.0.11",
		"192.0.2.11/32@10.0.0.11")
	res := Validate(c, rs, PolicyView{}, Options{})
	var got []string
	for _, f := range res.Findings {
		got = append(got, string(f.Rule)+" "+f.Prefix.String())
	}
	want := []string{"out-of-range 192.0.2.11/32"}
	if !equalStrings(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}
