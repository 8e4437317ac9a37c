package validator

import "testing"

func TestVIPWithoutEndpoints(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	ready := svcSpec{name: "shop/web", vips: []string{"172.16.100.10"}, endpoints: []string{"node1"}}
	notReady := svcSpec{name: "shop/api", vips: []string{"172.16.100.11"}, endpoints: []string{"node1!", "node2!"}}
	none := svcSpec{name: "shop/db", vips: []string{"172.16.100.12"}, local: true}
	runRuleCases(t, vipWithoutEndpoints{}, []ruleCase{
		{name: "ready endpoint", cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2), ready),
			routes: routes("172.16.100.10/32@10.0.0.11", "172.16.100.10/32@10.0.0.12")},
		{name: "endpoints, none ready: one finding per announcer, naming it",
			cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2), notReady),
			routes:  routes("172.16.100.11/32@10.0.0.11", "172.16.100.11/32@10.0.0.12"),
			want:    []string{"172.16.100.11/32 node1 shop/api", "172.16.100.11/32 node2 shop/api"}},
		{name: "no EndpointSlice at all", cluster: withServices(cluster(IPAMClusterPool, pool, n1), none),
			routes: routes("172.16.100.12/32@10.0.0.11"), want: []string{"172.16.100.12/32 node1 shop/db"}},
		{name: "announced by no current node: the finding names none",
			cluster: withServices(cluster(IPAMClusterPool, pool, n1), none),
			routes:  routes("172.16.100.12/32@10.0.0.99"), want: []string{"172.16.100.12/32 - shop/db"}},
		{name: "not announced: nothing drawn", cluster: withServices(cluster(IPAMClusterPool, pool, n1), notReady)},
		{name: "only a graceful-restart path", cluster: withServices(cluster(IPAMClusterPool, pool, n1), notReady),
			routes: routes("172.16.100.11/32@10.0.0.11!")},
	})
}
