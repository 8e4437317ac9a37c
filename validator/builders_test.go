package validator

import (
	"net/netip"
	"strings"
	"testing"
)

// The builders below keep the rule tables short: a cluster of Cilium nodes
// "nodeN" at 10.0.0.1N owning the given CIDRs, and routes "prefix@nexthop".

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }
func addr(s string) netip.Addr  { return netip.MustParseAddr(s) }

func pfxs(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = pfx(s)
	}
	return out
}

type nodeSpec struct {
	name, ip string
	cilium   []string // CiliumNode spec.ipam.podCIDRs; nil means no CiliumNode
	k8s      []string // Node.spec.podCIDRs
	notReady bool
	noCilium bool
	labels   map[string]string
	pools    map[string][]string
	nodeGone bool // only the CiliumNode exists
}

func cluster(mode IPAMMode, ranges []string, specs ...nodeSpec) *Cluster {
	c := &Cluster{IPAM: IPAM{Mode: mode, PodRanges: pfxs(ranges...)}}
	for _, s := range specs {
		if !s.nodeGone {
			c.Nodes = append(c.Nodes, Node{Name: s.name, Addresses: []netip.Addr{addr(s.ip)},
				PodCIDRs: pfxs(s.k8s...), Ready: !s.notReady, Labels: s.labels})
		}
		if !s.noCilium {
			cn := CiliumNode{Name: s.name, Addresses: []netip.Addr{addr(s.ip)}, PodCIDRs: pfxs(s.cilium...)}
			for pool, cidrs := range s.pools {
				cn.Pools = append(cn.Pools, PoolAllocation{Pool: pool, CIDRs: pfxs(cidrs...)})
			}
			c.CiliumNodes = append(c.CiliumNodes, cn)
		}
	}
	return c
}

// routes parses "10.244.1.0/24@10.0.0.11" entries; a trailing "!" marks a GR-stale path.
// withBGP has Cilium's BGP configuration select exactly the nodes named (an
// ASN each, Cluster.NodeASNs); none: a configuration that selects no node.
func withBGP(c *Cluster, nodes ...string) *Cluster {
	c.NodeASNs = map[string][]uint32{}
	for _, n := range nodes {
		c.NodeASNs[n] = []uint32{65010}
	}
	return c
}

func routes(specs ...string) []Route {
	out := make([]Route, len(specs))
	for i, s := range specs {
		stale := strings.HasSuffix(s, "!")
		p, nh, _ := strings.Cut(strings.TrimSuffix(s, "!"), "@")
		out[i] = Route{Prefix: pfx(p), Attributes: &Attributes{NextHop: addr(nh), Peer: addr("127.0.0.1")}, Stale: stale}
	}
	return out
}

// got is the compact form rule tests compare: "prefix node owner", "-" for no node.
func got(t *testing.T, r Rule, c *Cluster, rs []Route, pv PolicyView, opts Options) []string {
	t.Helper()
	var out []string
	var fs []Finding
	r.Check(NewSnapshot(c, rs, pv, opts), func(f Finding) {
		if f.Message == "" || f.Hint == "" {
			t.Errorf("%s: finding without message or hint: %+v", r.ID(), f)
		}
		fs = append(fs, f)
	})
	SortFindings(fs)
	for _, f := range fs {
		node := f.Node
		if node == "" {
			node = "-"
		}
		out = append(out, strings.TrimSpace(f.Prefix.String()+" "+node+" "+f.Owner))
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type ruleCase struct {
	name    string
	cluster *Cluster
	routes  []Route
	policy  PolicyView // what the ToRs showed of their policy, beside the routes
	opts    Options
	want    []string
}

func runRuleCases(t *testing.T, r Rule, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if g := got(t, r, tc.cluster, tc.routes, tc.policy, tc.opts); !equalStrings(g, tc.want) {
				t.Errorf("%s findings\n got: %q\nwant: %q", r.ID(), g, tc.want)
			}
		})
	}
}

var (
	n1 = nodeSpec{name: "node1", ip: "10.0.0.11", cilium: []string{"10.244.1.0/24"}}
	n2 = nodeSpec{name: "node2", ip: "10.0.0.12", cilium: []string{"10.244.2.0/24"}}
	n3 = nodeSpec{name: "node3", ip: "10.0.0.13", cilium: []string{"10.244.3.0/24"}}
)
