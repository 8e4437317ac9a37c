package validator

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
)

// syntheticCluster builds n Cilium nodes (cluster-pool, one /24 each, /26 past
// 65536 nodes) and the routes they announce: each node its CIDR, the rest are
// LoadBalancer VIPs;
// one node in a hundred announces a neighbour's CIDR, one route in a hundred
// comes from a machine that left the cluster.
func syntheticCluster(n, routes int) (*Cluster, []Route) {
	c := &Cluster{IPAM: IPAM{Mode: IPAMClusterPool, PodRanges: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
		LBPools: []netip.Prefix{netip.MustParsePrefix("172.16.0.0/12")}}
	c.Nodes = make([]Node, n)
	c.CiliumNodes = make([]CiliumNode, n)
	nodeIP := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{100, 64 + byte(i>>16), byte(i >> 8), byte(i)}) }
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("node%06d", i)
		c.Nodes[i] = Node{Name: name, Addresses: []netip.Addr{nodeIP(i)}, Ready: true}
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 0}), 24)
		if n > 65536 {
			p = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 10), byte(i >> 2), byte(i&3) << 6}), 26)
		}
		c.CiliumNodes[i] = CiliumNode{Name: name, Addresses: []netip.Addr{nodeIP(i)}, PodCIDRs: []netip.Prefix{p}}
	}
	rs := make([]Route, 0, routes)
	peer := netip.MustParseAddr("127.0.0.1")
	sets := map[netip.Addr]*Attributes{} // shared by next hop, as the collector's store shares them
	attrs := func(nh netip.Addr) *Attributes {
		if sets[nh] == nil {
			sets[nh] = &Attributes{NextHop: nh, Peer: peer}
		}
		return sets[nh]
	}
	for i := 0; len(rs) < routes; i++ {
		node := i % n
		if i < n {
			owner := node
			if node%100 == 7 {
				owner = (node + 1) % n // announces a neighbour's CIDR
			}
			nh := nodeIP(node)
			if node%100 == 42 {
				nh = netip.AddrFrom4([4]byte{198, 18, byte(node >> 8), byte(node)}) // a machine that left
			}
			// The neighbour's CIDR comes as a second ADD-PATH path: one peer
			// announces each (prefix, path ID) once, as a BGP session does.
			rs = append(rs, Route{Prefix: c.CiliumNodes[owner].PodCIDRs[0], Attributes: attrs(nh),
				PathID: uint32(owner - node)})
			continue
		}
		vip := netip.AddrFrom4([4]byte{172, 16 + byte(i>>16&0x0f), byte(i >> 8), byte(i)})
		rs = append(rs, Route{Prefix: netip.PrefixFrom(vip, 32), Attributes: attrs(nodeIP(node))})
	}
	return c, rs
}

func BenchmarkValidate(b *testing.B) {
	for _, size := range []struct{ nodes, routes int }{{1_000, 10_000}, {10_000, 100_000}, {100_000, 1_000_000}} {
		c, rs := syntheticCluster(size.nodes, size.routes)
		b.Run(fmt.Sprintf("nodes=%d/routes=%d", size.nodes, size.routes), func(b *testing.B) {
			b.ReportAllocs()
			var findings int
			cpu := cpuNanos()
			for b.Loop() {
				findings = len(Validate(c, rs, PolicyView{}, Options{}).Findings)
			}
			b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(findings), "findings")
		})
	}
}

func TestSyntheticClusterFindings(t *testing.T) {
	c, rs := syntheticCluster(1000, 10_000)
	res := Validate(c, rs, PolicyView{}, Options{})
	// 10 neighbours' CIDRs announced (foreign + missing for both), 10 stale (+ missing).
	if res.Summary.ByRule[string(RuleForeignCIDR)] != 10 || res.Summary.ByRule[string(RuleStaleRoute)] != 10 {
		t.Errorf("synthetic findings by rule: %v", res.Summary.ByRule)
	}
}

// eventSizes are the loaded engines the route-event benchmarks run against.
var eventSizes = []struct{ nodes, routes int }{{10_000, 100_000}, {100_000, 1_000_000}}

// benchEvents times one route event against a loaded engine. sample holds
// every 97th route (pod CIDRs and VIPs in the synthetic mix); the timed event
// is AddRoute of a sampled route that was withdrawn, or WithdrawRoute of one
// that is held. When the sample is used up, the timer stops while it is put
// back.
func benchEvents(b *testing.B, add bool) {
	for _, size := range eventSizes {
		b.Run(fmt.Sprintf("nodes=%d/routes=%d", size.nodes, size.routes), func(b *testing.B) {
			c, rs := syntheticCluster(size.nodes, size.routes)
			e := NewEngine(c, rs, PolicyView{}, Options{})
			var sample []Route
			for i := 0; i < len(rs); i += 97 {
				sample = append(sample, rs[i])
			}
			undo := func() {
				for _, r := range sample {
					if add {
						e.WithdrawRoute(r)
					} else {
						e.AddRoute(r)
					}
				}
			}
			if add {
				undo()
			}
			b.ReportAllocs()
			b.ResetTimer()
			k, changed := 0, 0
			cpu, paused := cpuNanos(), int64(0)
			for b.Loop() {
				if k == len(sample) {
					b.StopTimer()
					t := cpuNanos()
					undo()
					paused += cpuNanos() - t
					k = 0
					b.StartTimer()
				}
				var ch Change
				if add {
					ch = e.AddRoute(sample[k])
				} else {
					ch = e.WithdrawRoute(sample[k])
				}
				changed += len(ch.Added) + len(ch.Removed)
				k++
			}
			b.ReportMetric(float64(cpuNanos()-cpu-paused)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(changed)/float64(b.N), "changes/op")
		})
	}
}

func BenchmarkRouteAdd(b *testing.B)      { benchEvents(b, true) }
func BenchmarkRouteWithdraw(b *testing.B) { benchEvents(b, false) }

// BenchmarkEngineSync is the run loop's validation with an incremental engine
// (monitor/): the route source hands over every route, of which
// one changed since the last validation.
func BenchmarkEngineSync(b *testing.B) {
	for _, size := range eventSizes {
		b.Run(fmt.Sprintf("nodes=%d/routes=%d", size.nodes, size.routes), func(b *testing.B) {
			c, rs := syntheticCluster(size.nodes, size.routes)
			e := NewEngine(c, rs, PolicyView{}, Options{})
			flapped := slices.Clone(rs)
			flapped[len(rs)/2].Unshare().NextHop = netip.MustParseAddr("198.18.255.1")
			b.ReportAllocs()
			cpu := cpuNanos()
			for n := 0; b.Loop(); n++ {
				if n%2 == 0 {
					e.Sync(flapped)
				} else {
					e.Sync(rs)
				}
			}
			b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// podCIDRCluster builds n Cilium nodes with per /28s each (cluster-pool) and
// the routes a healthy cluster announces: every CIDR by its node. Unlike
// syntheticCluster's mix, where most routes are VIPs outside every allocation,
// every route here is searched in the allocation table (the ingest
// benchmark's workload, hack/bench).
func podCIDRCluster(n, per int) (*Cluster, []Route) {
	c := &Cluster{IPAM: IPAM{Mode: IPAMClusterPool, PodRanges: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	peer := netip.MustParseAddr("127.0.0.2")
	rs := make([]Route, 0, n*per)
	for i := range n {
		name := fmt.Sprintf("node%06d", i)
		ip := netip.AddrFrom4([4]byte{100, 64 + byte(i>>16), byte(i >> 8), byte(i)})
		c.Nodes = append(c.Nodes, Node{Name: name, Addresses: []netip.Addr{ip}, Ready: true})
		cidrs := make([]netip.Prefix, per)
		attrs := &Attributes{NextHop: ip, Peer: peer, PeerASN: 65000, RouterID: peer}
		for j := range cidrs {
			k := i*per + j
			cidrs[j] = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(k >> 12), byte(k >> 4), byte(k&15) << 4}), 28)
			rs = append(rs, Route{Prefix: cidrs[j], Attributes: attrs})
		}
		c.CiliumNodes = append(c.CiliumNodes, CiliumNode{Name: name, Addresses: []netip.Addr{ip}, PodCIDRs: cidrs})
	}
	return c, rs
}

// BenchmarkValidatePodCIDRs is a full validation, and the build of the run
// loop's engine (which also indexes every route's identity), over 100k nodes
// with ten pod CIDRs each, all announced.
func BenchmarkValidatePodCIDRs(b *testing.B) {
	c, rs := podCIDRCluster(100_000, 10)
	for _, engine := range []bool{false, true} {
		name := "validate/nodes=100000/routes=1000000"
		if engine {
			name = "engine/nodes=100000/routes=1000000"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuNanos()
			for b.Loop() {
				var res Result
				if engine {
					res = NewEngine(c, rs, PolicyView{}, Options{}).Result()
				} else {
					res = Validate(c, rs, PolicyView{}, Options{})
				}
				if len(res.Findings) != 0 {
					b.Fatalf("%d findings on a healthy cluster", len(res.Findings))
				}
			}
			b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
