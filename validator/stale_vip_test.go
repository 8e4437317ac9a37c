package validator

import "testing"

func TestStaleVIP(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	web := svcSpec{name: "shop/web", vips: []string{"172.16.100.10"}, endpoints: []string{"node1"}, announced: true}
	noServices := cluster(IPAMClusterPool, pool, n1, n2)
	noServices.LBPools = pfxs("172.16.100.0/24")
	runRuleCases(t, staleVIP{}, []ruleCase{
		{name: "VIP held by a Service", cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2), web),
			routes: routes("172.16.100.10/32@10.0.0.11", "172.16.100.10/32@10.0.0.12")},
		{name: "deleted Service's VIP still announced by two nodes",
			cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2), web),
			routes:  routes("172.16.100.10/32@10.0.0.11", "172.16.100.20/32@10.0.0.11", "172.16.100.20/32@10.0.0.12"),
			want:    []string{"172.16.100.20/32 node1", "172.16.100.20/32 node2"}},
		{name: "IPv6 VIP", cluster: withServices(cluster(IPAMClusterPool, pool, n1)),
			routes: routes("fd00:172:16::20/128@10.0.0.11"), want: []string{"fd00:172:16::20/128 node1"}},
		{name: "from no current node", cluster: withServices(cluster(IPAMClusterPool, pool, n1)),
			routes: routes("172.16.100.20/32@10.0.0.99"), want: []string{"172.16.100.20/32 -"}},
		{name: "Services not read: no judgement", cluster: noServices, routes: routes("172.16.100.20/32@10.0.0.11")},
		{name: "host route outside every LoadBalancer pool is out-of-range's",
			cluster: withServices(cluster(IPAMClusterPool, pool, n1)), routes: routes("10.0.0.11/32@10.0.0.11")},
		{name: "the pool itself is no host route", cluster: withServices(cluster(IPAMClusterPool, pool, n1)),
			routes: routes("172.16.100.0/24@10.0.0.11")},
		{name: "graceful-restart path is left alone", cluster: withServices(cluster(IPAMClusterPool, pool, n1)),
			routes: routes("172.16.100.20/32@10.0.0.11!")},
	})
}
