package validator

import "testing"

func TestOutOfRange(t *testing.T) {
	dual := []string{"10.244.0.0/16", "fd00:10:244::/56"}
	withLB := cluster(IPAMClusterPool, dual, n1)
	withLB.LBPools = pfxs("172.16.100.0/24")
	runRuleCases(t, outOfRange{}, []ruleCase{
		{name: "pod CIDR", cluster: cluster(IPAMClusterPool, dual, n1), routes: routes("10.244.1.0/24@10.0.0.11")},
		{name: "default routes", cluster: cluster(IPAMClusterPool, dual, n1),
			routes: routes("0.0.0.0/0@10.0.0.11", "::/0@10.0.0.11"), want: []string{"0.0.0.0/0 node1", "::/0 node1"}},
		{name: "host route of the node", cluster: cluster(IPAMClusterPool, dual, n1),
			routes: routes("10.0.0.11/32@10.0.0.11"), want: []string{"10.0.0.11/32 node1"}},
		{name: "LoadBalancer VIP", cluster: withLB, routes: routes("172.16.100.10/32@10.0.0.11")},
		{name: "aggregate equal to the pool is in range", cluster: cluster(IPAMClusterPool, dual, n1),
			routes: routes("10.244.0.0/16@10.0.0.11")},
		{name: "aggregate wider than the pool", cluster: cluster(IPAMClusterPool, dual, n1),
			routes: routes("10.240.0.0/12@10.0.0.11"), want: []string{"10.240.0.0/12 node1"}},
		{name: "a router's default route is the network's, not a leak", cluster: cluster(IPAMClusterPool, dual, n1),
			routes: routes("0.0.0.0/0@10.0.0.99")},
		{name: "ranges unknown: no judgement", cluster: cluster(IPAMKubernetes, nil, n1),
			routes: routes("0.0.0.0/0@10.0.0.11")},
		{name: "only the family with known ranges is judged", cluster: cluster(IPAMClusterPool, dual[:1], n1),
			routes: routes("::/0@10.0.0.11")},
	})
}
