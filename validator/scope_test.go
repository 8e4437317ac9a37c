package validator

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// torTable is a real ToR's table beside a healthy cluster's routes: a
// spine's default route and uplinks, the ToR's own connected routes (its
// rack subnet, its loopback), another tenant's prefixes, a range listed in
// cluster.allowedRanges relayed from the network, and uplinks inside the
// pod range that cluster.networkRanges declares the network's.
func torTable() []Route {
	return routes(
		"10.244.1.0/24@10.0.0.11", "10.244.2.0/24@10.0.0.12", // the nodes' pod CIDRs
		"0.0.0.0/0@172.31.0.1",        // a spine's default route
		"172.31.0.0/31@172.31.0.1",    // an uplink
		"10.0.0.0/24@0.0.0.0",         // the ToR's rack subnet (connected)
		"192.0.2.1/32@0.0.0.0",        // the ToR's loopback
		"198.51.100.0/24@172.31.0.1",  // another tenant
		"192.168.100.0/24@172.31.0.1", // an allowed range, the network's
		"10.244.255.0/31@172.31.0.3",  // an uplink numbered from the pod range: a network range
	)
}

func scopeCluster() *Cluster { return cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1, n2) }

func scopeOptions() Options {
	return Options{AllowedRanges: pfxs("192.168.100.0/24"), NetworkRanges: pfxs("10.244.255.0/24")}
}

// TestScopeNetworkRoutesAreNotJudged: a healthy cluster behind a real ToR's
// table has no finding; the network's routes are counted.
func TestScopeNetworkRoutesAreNotJudged(t *testing.T) {
	res := Validate(scopeCluster(), torTable(), PolicyView{}, scopeOptions())
	for _, f := range res.Findings {
		t.Errorf("finding on the network's route: %s %s: %s", f.Rule, f.Prefix, f.Message)
	}
	if res.Summary.NetworkRoutes != 7 {
		t.Errorf("Summary.NetworkRoutes = %d, want 7", res.Summary.NetworkRoutes)
	}
}

// TestScopeClusterRoutesStayJudged: what is the cluster's is judged still:
// a node's default route, a router announcing a node's pod CIDR or an
// unallocated part of the pod range, a deleted node's route anywhere, and a
// network range never hides a node's allocation.
func TestScopeClusterRoutesStayJudged(t *testing.T) {
	c := scopeCluster()
	c.Deleted = []DeletedNode{{Name: "node9", Addresses: []netip.Addr{addr("10.0.0.19")}}}
	for _, tc := range []struct {
		name, route string
		opts        Options
		want        string
	}{
		{"a node's default route", "0.0.0.0/0@10.0.0.11", scopeOptions(), "out-of-range 0.0.0.0/0"},
		{"a router announcing a node's pod CIDR", "10.244.1.0/24@172.31.0.1", scopeOptions(),
			"stale-route 10.244.1.0/24,duplicate-origin 10.244.1.0/24"},
		{"a router in the pod range", "10.244.77.0/24@172.31.0.1", scopeOptions(), "stale-route 10.244.77.0/24"},
		{"a deleted node's route outside every range", "203.0.113.0/24@10.0.0.19", scopeOptions(),
			"out-of-range 203.0.113.0/24,stale-route 203.0.113.0/24"},
		{"a network range over a node's CIDR", "10.244.1.0/24@172.31.0.1",
			Options{NetworkRanges: pfxs("10.244.0.0/16")}, "stale-route 10.244.1.0/24,duplicate-origin 10.244.1.0/24"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := append(torTable(), routes(tc.route)...)
			var got []string
			for _, f := range Validate(c, rs, PolicyView{}, tc.opts).Findings {
				got = append(got, fmt.Sprintf("%s %s", f.Rule, f.Prefix))
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("findings %v, want %s", got, tc.want)
			}
		})
	}
}

// TestStaleRouteHintOfARouter: a router's route is never blamed on
// cilium-agent; a deleted node's is.
func TestStaleRouteHintOfARouter(t *testing.T) {
	c := scopeCluster()
	c.Deleted = []DeletedNode{{Name: "node9", Addresses: []netip.Addr{addr("10.0.0.19")}}}
	for _, tc := range []struct {
		route string
		agent bool
	}{{"10.244.77.0/24@172.31.0.1", false}, {"10.244.9.0/24@10.0.0.19", true}} {
		var hint string
		staleRoute{}.Check(NewSnapshot(c, routes(tc.route), PolicyView{}, Options{}), func(f Finding) { hint = f.Hint })
		if strings.Contains(hint, "cilium-agent") != tc.agent {
			t.Errorf("%s: hint %q (names cilium-agent: want %v)", tc.route, hint, tc.agent)
		}
	}
}
