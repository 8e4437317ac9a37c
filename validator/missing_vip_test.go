package validator

import (
	"strings"
	"testing"
)

func TestMissingVIP(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	web := svcSpec{name: "shop/web", vips: []string{"172.16.100.10"}, endpoints: []string{"node1", "node2!"},
		announced: true}
	notAnnounced := web
	notAnnounced.announced = false
	down := web
	down.endpoints = []string{"node1!"}
	dual := web
	dual.vips = []string{"172.16.100.10", "fd00:172:16::10"}
	local := web
	local.local = true
	rack2 := n2
	rack2.labels = map[string]string{"rack": "r2"}
	rack1 := n1
	rack1.labels = map[string]string{"rack": "r1"}
	localBoth := local
	localBoth.endpoints = []string{"node1", "node2"}
	localElsewhere := local
	localElsewhere.endpoints = []string{"node9"}
	scoped := Options{Scope: map[string]string{"rack": "r2"}}
	runRuleCases(t, missingVIP{}, []ruleCase{
		{name: "announced", cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2), web),
			routes: routes("172.16.100.10/32@10.0.0.11")},
		{name: "announced by nobody", cluster: withServices(cluster(IPAMClusterPool, pool, n1, n2), web),
			routes: routes("10.244.1.0/24@10.0.0.11"), want: []string{"172.16.100.10/32 - shop/web"}},
		{name: "graceful-restart path still counts", cluster: withServices(cluster(IPAMClusterPool, pool, n1), web),
			routes: routes("172.16.100.10/32@10.0.0.11!")},
		{name: "Cilium not configured to announce it",
			cluster: withServices(cluster(IPAMClusterPool, pool, n1), notAnnounced)},
		{name: "no ready endpoint: nothing to reach", cluster: withServices(cluster(IPAMClusterPool, pool, n1), down)},
		{name: "the IPv6 VIP of a dual-stack Service", cluster: withServices(cluster(IPAMClusterPool, pool, n1), dual),
			routes: routes("172.16.100.10/32@10.0.0.11"), want: []string{"fd00:172:16::10/128 - shop/web"}},
		{name: "covering route is no announcement", cluster: withServices(cluster(IPAMClusterPool, pool, n1), web),
			routes: routes("172.16.100.0/24@10.0.0.11"), want: []string{"172.16.100.10/32 - shop/web"}},
		{name: "Local, endpoints only on another rack's node",
			cluster: withServices(cluster(IPAMClusterPool, pool, rack1, rack2), local), opts: scoped},
		// Cilium's interop scenario svc-traffic-policy: the endpoint moves to a node outside the
		// scope that runs no BGP; nobody anywhere announces the VIP.
		{name: "Local, endpoints only on a node no BGP configuration selects",
			cluster: withBGP(withServices(cluster(IPAMClusterPool, pool, rack1, rack2), local), "node2"),
			opts:    scoped, want: []string{"172.16.100.10/32 - shop/web"}},
		{name: "Local, another rack's node runs BGP",
			cluster: withBGP(withServices(cluster(IPAMClusterPool, pool, rack1, rack2), local), "node1", "node2"),
			opts:    scoped},
		{name: "Local, the node in scope runs no BGP, another rack's does",
			cluster: withBGP(withServices(cluster(IPAMClusterPool, pool, rack1, rack2), localBoth), "node1"),
			opts:    scoped},
		{name: "Local, a BGP configuration selecting no node: every node may announce",
			cluster: withBGP(withServices(cluster(IPAMClusterPool, pool, rack1, rack2), local)),
			opts:    scoped},
		{name: "Local, endpoint on a node routewarden does not know",
			cluster: withBGP(withServices(cluster(IPAMClusterPool, pool, rack1, rack2), localElsewhere), "node2"),
			opts:    scoped},
		{name: "Cluster policy: every rack announces", cluster: withServices(cluster(IPAMClusterPool, pool, rack1, rack2), web),
			opts: scoped, want: []string{"172.16.100.10/32 - shop/web"}},
	})
}

func TestMissingVIPHintNamesTheNodesWithoutBGP(t *testing.T) {
	local := svcSpec{name: "shop/web", vips: []string{"172.16.100.10"}, endpoints: []string{"node2"},
		announced: true, local: true}
	c := withBGP(withServices(cluster(IPAMClusterPool, nil, n1, n2), local), "node1")
	var hints []string
	missingVIP{}.Check(NewSnapshot(c, nil, PolicyView{}, Options{}), func(f Finding) { hints = append(hints, f.Hint) })
	if len(hints) != 1 || !strings.Contains(hints[0], "selects any of them (node2)") {
		t.Errorf("hints: %q", hints)
	}
}
