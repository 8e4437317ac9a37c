package validator

import (
	"net/netip"
	"testing"
)

// TestEngineAnnounces: routes belong to current nodes and to deleted nodes'
// tombstones alike; a route from an unknown next hop belongs to nobody, not
// even to "any node".
func TestEngineAnnounces(t *testing.T) {
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1, n2)
	c.Deleted = []DeletedNode{{Name: "node9", Addresses: []netip.Addr{addr("10.0.0.99")}}}
	e := NewEngine(c, routes("10.244.1.0/24@10.0.0.11", "10.244.2.0/24@10.0.0.99", "10.244.3.0/24@10.0.0.77"), PolicyView{},
		Options{})

	for _, tc := range []struct {
		prefix, node string
		want         bool
	}{
		{"10.244.1.0/24", "node1", true},
		{"10.244.1.0/24", "node2", false},
		{"10.244.2.0/24", "node9", true},
		{"10.244.2.0/24", "node2", false},
		{"10.244.3.0/24", "", false},
		{"10.244.1.0/24", "", true}, // any node's
		{"10.244.4.0/24", "node1", false},
	} {
		if got := e.Announces(netip.MustParsePrefix(tc.prefix), tc.node); got != tc.want {
			t.Errorf("Announces(%s, %q) = %v, want %v", tc.prefix, tc.node, got, tc.want)
		}
	}
	var got []string
	e.RoutesOf(map[string]bool{"node9": true, "node2": true}, func(r *Route, n string) {
		got = append(got, r.Prefix.String()+" "+n)
	})
	if len(got) != 1 || got[0] != "10.244.2.0/24 node9" {
		t.Errorf("RoutesOf = %q, want node9's route only", got)
	}
}
