package validator

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"time"
)

// randomInputs builds a small random cluster, route set and options from a
// seed. The address space is tiny on purpose, so that prefixes nest, collide
// and repeat: every rule fires somewhere across a few hundred seeds.
func randomInputs(seed uint64) (*Cluster, []Route, Options) {
	rnd := rand.New(rand.NewPCG(seed, seed*7+1))
	pick := func(ss []string) string { return ss[rnd.IntN(len(ss))] }
	some := func(ss []string, max int) []netip.Prefix {
		var out []netip.Prefix
		for range rnd.IntN(max + 1) {
			p := pfx(pick(ss))
			out = append(out, p)
		}
		return out
	}
	cidrs := []string{"10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24", "10.0.0.0/23", "10.0.0.128/25",
		"10.0.0.0/16", "fd00::/64", "fd00:0:0:1::/64", "fd00::/56", "10.1.0.0/24"}
	modes := []IPAMMode{IPAMClusterPool, IPAMKubernetes, IPAMMultiPool, "eni"}
	c := &Cluster{IPAM: IPAM{Mode: modes[rnd.IntN(len(modes))], ModeSource: "test"}}
	if rnd.IntN(4) > 0 {
		c.IPAM.PodRanges = append(c.IPAM.PodRanges, pfx("10.0.0.0/16"))
	}
	if rnd.IntN(2) > 0 {
		c.IPAM.PodRanges = append(c.IPAM.PodRanges, pfx("fd00::/48"))
	}
	if rnd.IntN(2) > 0 {
		c.LBPools = []netip.Prefix{pfx("172.16.0.0/28")}
	}
	nodeAddr := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{192, 168, 0, byte(i)}) }
	for i := range rnd.IntN(7) {
		name := fmt.Sprintf("n%d", i)
		hasNode, hasCilium := rnd.IntN(6) > 0, rnd.IntN(5) > 0
		if hasNode {
			n := Node{Name: name, Addresses: []netip.Addr{nodeAddr(i)}, PodCIDRs: some(cidrs, 2),
				Ready: rnd.IntN(5) > 0}
			if rnd.IntN(3) == 0 {
				n.Labels = map[string]string{"zone": pick([]string{"a", "b"})}
			}
			if rnd.IntN(4) == 0 {
				n.Addresses = append(n.Addresses, netip.MustParseAddr(fmt.Sprintf("fd10::%d", i)))
			}
			c.Nodes = append(c.Nodes, n)
		}
		if hasCilium {
			cn := CiliumNode{Name: name, Addresses: []netip.Addr{nodeAddr(i + rnd.IntN(2)*10)},
				PodCIDRs: some(cidrs, 2)}
			if rnd.IntN(2) == 0 {
				cn.Pools = []PoolAllocation{{Pool: pick([]string{"default", "blue"}), CIDRs: some(cidrs, 2)}}
			}
			c.CiliumNodes = append(c.CiliumNodes, cn)
		}
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range rnd.IntN(3) {
		c.Deleted = append(c.Deleted, DeletedNode{Name: fmt.Sprintf("gone%d", i),
			Addresses: []netip.Addr{nodeAddr(200 + rnd.IntN(3))}, CIDRs: some(cidrs, 2),
			DeletedAt: now.Add(-time.Duration(rnd.IntN(600)) * time.Second)})
	}
	prefixes := append(cidrs, "172.16.0.1/32", "172.16.0.2/32", "0.0.0.0/0", "8.8.8.0/24", "10.0.5.0/24",
		"10.0.0.0/22", "192.168.0.1/32", "fd00:0:0:2::/64", "::/0", "10.0.0.0/8")
	hops := func() netip.Addr {
		switch k := rnd.IntN(10); {
		case k < 6:
			return nodeAddr(rnd.IntN(8) + rnd.IntN(2)*10)
		case k < 8:
			return nodeAddr(200 + rnd.IntN(3))
		case k < 9:
			return netip.MustParseAddr("fd10::1")
		}
		return netip.Addr{}
	}
	var rs []Route
	for range rnd.IntN(25) {
		r := Route{Prefix: pfx(pick(prefixes)), Attributes: &Attributes{NextHop: hops()}, Stale: rnd.IntN(8) == 0,
			PathID: uint32(rnd.IntN(3))}
		if rnd.IntN(2) == 0 {
			r.Peer = hops()
		}
		if rnd.IntN(3) == 0 {
			r.RouterID = hops()
		}
		rs = append(rs, r)
	}
	opts := Options{Now: now}
	if rnd.IntN(4) == 0 {
		opts.AllowedRanges = []netip.Prefix{pfx("8.8.8.0/24")}
	}
	if rnd.IntN(4) == 0 {
		opts.Scope = map[string]string{"zone": "a"}
	}
	if rnd.IntN(4) == 0 {
		opts.Rules = map[RuleID]RuleOptions{RuleMissingRoute: {Disabled: true}, RuleStaleRoute: {Severity: SeverityInfo}}
	}
	return c, rs, opts
}
