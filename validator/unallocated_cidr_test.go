package validator

import "testing"

func TestUnallocatedCIDR(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	withLB := cluster(IPAMClusterPool, pool, n1)
	withLB.LBPools = pfxs("172.16.100.0/24")
	runRuleCases(t, unallocatedCIDR{}, []ruleCase{
		{name: "allocated", cluster: cluster(IPAMClusterPool, pool, n1), routes: routes("10.244.1.0/24@10.0.0.11")},
		{name: "free CIDR in the pool", cluster: cluster(IPAMClusterPool, pool, n1),
			routes: routes("10.244.7.0/24@10.0.0.11"), want: []string{"10.244.7.0/24 node1"}},
		{name: "LoadBalancer VIP", cluster: withLB, routes: routes("172.16.100.10/32@10.0.0.11")},
		{name: "allowed range", cluster: cluster(IPAMClusterPool, pool, n1), routes: routes("192.0.2.0/24@10.0.0.11"),
			opts: Options{AllowedRanges: pfxs("192.0.2.0/24")}},
		{name: "outside the pod ranges is out-of-range's", cluster: cluster(IPAMClusterPool, pool, n1),
			routes: routes("192.168.0.0/24@10.0.0.11")},
		{name: "ranges unknown", cluster: cluster(IPAMKubernetes, nil, n1),
			routes: routes("192.168.0.0/24@10.0.0.11"), want: []string{"192.168.0.0/24 node1"}},
		{name: "no origin node is stale-route's", cluster: cluster(IPAMClusterPool, pool, n1),
			routes: routes("10.244.7.0/24@10.0.0.99")},
	})
}
