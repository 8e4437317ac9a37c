package validator

import "testing"

func TestDuplicateOrigin(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	withLB := cluster(IPAMClusterPool, pool, n1, n2)
	withLB.LBPools = pfxs("172.16.100.0/24")
	twoPeers := []Route{
		{Prefix: pfx("10.244.1.0/24"), Attributes: &Attributes{NextHop: addr("10.0.0.11"), Peer: addr("127.0.0.1")}},
		{Prefix: pfx("10.244.1.0/24"), Attributes: &Attributes{NextHop: addr("10.0.0.11"), Peer: addr("127.0.0.2")}},
	}
	runRuleCases(t, duplicateOrigin{}, []ruleCase{
		{name: "one origin", cluster: cluster(IPAMClusterPool, pool, n1), routes: routes("10.244.1.0/24@10.0.0.11")},
		{name: "same node through two peers", cluster: cluster(IPAMClusterPool, pool, n1), routes: twoPeers},
		{name: "owner and a stale machine", cluster: cluster(IPAMClusterPool, pool, n1, n2),
			routes: routes("10.244.2.0/24@10.0.0.12", "10.244.2.0/24@10.0.0.99"),
			want:   []string{"10.244.2.0/24 node2 node2"}},
		{name: "unallocated pod-range prefix", cluster: cluster(IPAMClusterPool, pool, n1, n2),
			routes: routes("10.244.9.0/24@10.0.0.11", "10.244.9.0/24@10.0.0.12"), want: []string{"10.244.9.0/24 -"}},
		{name: "ECMP LoadBalancer VIP is fine", cluster: withLB,
			routes: routes("172.16.100.10/32@10.0.0.11", "172.16.100.10/32@10.0.0.12")},
	})
}
