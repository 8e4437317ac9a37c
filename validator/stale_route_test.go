package validator

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestStaleRoute(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	gone := n3
	gone.nodeGone = true
	runRuleCases(t, staleRoute{}, []ruleCase{
		{name: "healthy", cluster: cluster(IPAMClusterPool, pool, n1, n2),
			routes: routes("10.244.1.0/24@10.0.0.11", "10.244.2.0/24@10.0.0.12")},
		{name: "decommissioned node still announcing its CIDR now owned by node2",
			cluster: cluster(IPAMClusterPool, pool, n1, n2), routes: routes("10.244.2.0/24@10.0.0.99"),
			want: []string{"10.244.2.0/24 - node2"}},
		{name: "unknown origin with an unallocated prefix", cluster: cluster(IPAMClusterPool, pool, n1),
			routes: routes("10.244.9.0/24@10.0.0.99"), want: []string{"10.244.9.0/24 -"}},
		{name: "graceful-restart stale path is not yet stale",
			cluster: cluster(IPAMClusterPool, pool, n1), routes: routes("10.244.9.0/24@10.0.0.99!")},
		{name: "CiliumNode without Node is not current", cluster: cluster(IPAMClusterPool, pool, n1, gone),
			routes: routes("10.244.3.0/24@10.0.0.13"), want: []string{"10.244.3.0/24 - node3"}},
		{name: "attributed by peer when the next hop is unknown", cluster: cluster(IPAMClusterPool, pool, n1),
			routes: []Route{{Prefix: pfx("10.244.1.0/24"), Attributes: &Attributes{NextHop: addr("192.0.2.1"),
				Peer: addr("10.0.0.11")}}}},
		{name: "attributed by router ID last", cluster: cluster(IPAMClusterPool, pool, n1),
			routes: []Route{{Prefix: pfx("10.244.1.0/24"), Attributes: &Attributes{RouterID: addr("10.0.0.11")}}}},
	})
}

func TestStaleRouteNamesTheDeletedNode(t *testing.T) {
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c.Deleted = []DeletedNode{{Name: "node9", Addresses: []netip.Addr{addr("10.0.0.19")},
		CIDRs: pfxs("10.244.9.0/24"), DeletedAt: now.Add(-3 * time.Minute)}}
	var msg string
	staleRoute{}.Check(NewSnapshot(c, routes("10.244.9.0/24@10.0.0.19"), PolicyView{}, Options{Now: now}), func(f Finding) {
		msg = f.Message
	})
	if !strings.Contains(msg, "belonged to node node9, deleted 3m0s ago") {
		t.Errorf("message does not name the deleted node: %q", msg)
	}
}
