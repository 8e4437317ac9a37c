package roa

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// cluster is two nodes under cluster-pool IPAM, a leftover CiliumNode of a
// deleted node, a LoadBalancer pool and Services.
func cluster() *validator.Cluster {
	return &validator.Cluster{
		IPAM:  validator.IPAM{Mode: validator.IPAMClusterPool, PodRanges: []netip.Prefix{pfx("10.244.0.0/16"), pfx("fd00:244::/48")}},
		Nodes: []validator.Node{{Name: "node1"}, {Name: "node2"}},
		CiliumNodes: []validator.CiliumNode{
			{Name: "node1", PodCIDRs: []netip.Prefix{pfx("10.244.1.0/24"), pfx("fd00:244:0:1::/64")}},
			{Name: "node2", PodCIDRs: []netip.Prefix{pfx("10.244.2.0/24")}},
			{Name: "node3", PodCIDRs: []netip.Prefix{pfx("10.244.3.0/24")}},
		},
		LBPools: []netip.Prefix{pfx("192.0.2.0/24")},
		Services: []validator.Service{
			{Namespace: "a", Name: "web", VIPs: []netip.Addr{netip.MustParseAddr("192.0.2.10")}, Announced: true},
			{Namespace: "a", Name: "local", VIPs: []netip.Addr{netip.MustParseAddr("192.0.2.11")}, Announced: true,
				ExternalTrafficPolicy: "Local", Endpoints: []validator.Endpoint{{NodeName: "node2", Ready: true}}},
			{Namespace: "a", Name: "quiet", VIPs: []netip.Addr{netip.MustParseAddr("192.0.2.12")}},
		},
	}
}

func keys(s Set) []string {
	var out []string
	for _, r := range s.ROAs {
		out = append(out, fmt.Sprintf("%s-%d AS%d", r.Prefix, r.MaxLen, r.ASN))
	}
	return out
}

func TestDerive(t *testing.T) {
	perNode := cluster()
	perNode.NodeASNs = map[string][]uint32{"node1": {65001}, "node2": {65002}}
	oneUnknown := cluster()
	oneUnknown.NodeASNs = map[string][]uint32{"node1": {65001}}
	for _, tc := range []struct {
		name       string
		c          *validator.Cluster
		opts       Options
		want       []string
		unresolved int
		openPools  string
	}{
		{"one AS for every node", cluster(), Options{DefaultASN: 65010, AllowedRanges: []netip.Prefix{pfx("198.51.100.0/24")}},
			[]string{"10.244.0.0/16-32 AS0", "10.244.1.0/24-24 AS65010", "10.244.2.0/24-24 AS65010",
				"192.0.2.0/24-32 AS0", "192.0.2.10/32-32 AS65010", "192.0.2.11/32-32 AS65010", "198.51.100.0/24-32 AS0",
				"fd00:244::/48-128 AS0", "fd00:244:0:1::/64-64 AS65010"}, 0, "[]"},
		{"an AS per node", perNode, Options{},
			[]string{"10.244.0.0/16-32 AS0", "10.244.1.0/24-24 AS65001", "10.244.2.0/24-24 AS65002",
				"192.0.2.0/24-32 AS0", "192.0.2.10/32-32 AS65001", "192.0.2.10/32-32 AS65002", "192.0.2.11/32-32 AS65002",
				"fd00:244::/48-128 AS0", "fd00:244:0:1::/64-64 AS65001"}, 0, "[]"},
		// node2's CIDR and the VIPs node2 may announce get no ROA, so their pools get no AS0 ROA (fail open).
		{"a node without an AS", oneUnknown, Options{},
			[]string{"10.244.1.0/24-24 AS65001", "192.0.2.10/32-32 AS65001", "fd00:244::/48-128 AS0",
				"fd00:244:0:1::/64-64 AS65001"}, 3, "[10.244.0.0/16 192.0.2.0/24]"},
		{"no AS at all", cluster(), Options{AllowedRanges: []netip.Prefix{pfx("198.51.100.0/24")}},
			[]string{"198.51.100.0/24-32 AS0"}, 5, "[10.244.0.0/16 192.0.2.0/24 fd00:244::/48]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Derive(tc.c, tc.opts)
			if got := keys(s); !slices.Equal(got, tc.want) {
				t.Errorf("ROAs\n got %q\nwant %q", got, tc.want)
			}
			if len(s.Unresolved) != tc.unresolved {
				t.Errorf("unresolved %q, want %d", s.Unresolved, tc.unresolved)
			}
			if got := fmt.Sprint(s.OpenPools); got != tc.openPools {
				t.Errorf("open pools %s, want %s", got, tc.openPools)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	a := ROA{Prefix: pfx("10.0.0.0/24"), MaxLen: 24, ASN: 1}
	b := ROA{Prefix: pfx("10.0.1.0/24"), MaxLen: 24, ASN: 1}
	c := ROA{Prefix: pfx("10.0.1.0/24"), MaxLen: 24, ASN: 2}
	for _, tc := range []struct {
		name           string
		old, cur       []ROA
		withdrawn, ann []ROA
	}{
		{"same", []ROA{a, b}, []ROA{a, b}, nil, nil},
		{"from nothing", nil, []ROA{a, b}, nil, []ROA{a, b}},
		{"to nothing", []ROA{a, b}, nil, []ROA{a, b}, nil},
		{"AS changed", []ROA{a, b}, []ROA{a, c}, []ROA{b}, []ROA{c}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, n := Diff(tc.old, tc.cur)
			if !slices.Equal(w, tc.withdrawn) || !slices.Equal(n, tc.ann) {
				t.Errorf("withdrawn %v announced %v, want %v %v", w, n, tc.withdrawn, tc.ann)
			}
		})
	}
}
