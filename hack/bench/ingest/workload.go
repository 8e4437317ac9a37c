package ingest

import (
	"fmt"
	"net/netip"

	"github.com/routewarden/routewarden/validator"
)

// Workload is what one trial announces: N prefixes of one family, ten per
// node (cluster-pool CiliumNodes with ten pod CIDRs each). Each node's
// prefixes are allocated to it (CiliumNode spec.ipam.podCIDRs) and announced
// with its address as next hop, so a complete verdict has no findings: every
// route is a correct one. A node's prefixes share their attributes and go in
// one UPDATE (as a ToR or the node itself would send them); 100k nodes for 1M
// prefixes is the engine benchmark's scale (validator/bench_test.go).
type Workload struct {
	Name     string // "v4-10k", ...
	Family   string // "ipv4" or "ipv6"
	N        int
	Nodes    int
	PerNode  int
	PodRange netip.Prefix
}

// New plans n prefixes of family: IPv4 /28s from 10.0.0.0/8 (2^20 of
// them, so 1M fits), IPv6 /64s from fd00::/32.
func New(family string, n int) Workload {
	w := Workload{Family: family, N: n, Name: fmt.Sprintf("%s-%s", family, short(n))}
	w.PerNode = 10
	w.Nodes = (n + w.PerNode - 1) / w.PerNode
	if family == "ipv4" {
		w.PodRange = netip.MustParsePrefix("10.0.0.0/8")
	} else {
		w.PodRange = netip.MustParsePrefix("fd00::/32")
	}
	return w
}

func short(n int) string {
	switch {
	case n >= 1000000 && n%1000000 == 0:
		return fmt.Sprintf("%dM", n/1000000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// Prefix returns the i-th prefix.
func (w Workload) Prefix(i int) netip.Prefix {
	if w.Family == "ipv4" {
		v := uint32(10)<<24 | uint32(i)<<4
		return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), 28)
	}
	var b [16]byte
	b[0], b[1] = 0xfd, 0x00
	b[4], b[5], b[6], b[7] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
	return netip.PrefixFrom(netip.AddrFrom16(b), 64)
}

// NodeAddr is node k's address (IPv4 from 100.64.0.0/10, IPv6 from fd99::/64);
// it is the next hop of the node's prefixes.
func (w Workload) NodeAddr(k int) netip.Addr {
	if w.Family == "ipv4" {
		v := uint32(100)<<24 | uint32(64)<<16 | uint32(k+1)
		return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	}
	var b [16]byte
	b[0], b[1] = 0xfd, 0x99
	b[12], b[13], b[14], b[15] = byte((k+1)>>24), byte((k+1)>>16), byte((k+1)>>8), byte(k+1)
	return netip.AddrFrom16(b)
}

// NodeOf is the node that announces prefix i.
func (w Workload) NodeOf(i int) int { return i / w.PerNode }

// Cluster is the static cluster whose allocations match the announced
// prefixes: cluster-pool IPAM, one Ready Node and CiliumNode per node.
func (w Workload) Cluster() validator.Cluster {
	c := validator.Cluster{IPAM: validator.IPAM{Mode: validator.IPAMClusterPool, ModeSource: "bench",
		PodRanges: []netip.Prefix{w.PodRange}}}
	// Sized exactly, as an informer-built cluster is: a million CIDRs grown
	// by append would carry ~40 MB of spare capacity into the RSS measured.
	c.Nodes = make([]validator.Node, 0, w.Nodes)
	c.CiliumNodes = make([]validator.CiliumNode, 0, w.Nodes)
	for k := 0; k < w.Nodes; k++ {
		name := fmt.Sprintf("node%d", k)
		addrs := []netip.Addr{w.NodeAddr(k)}
		cidrs := make([]netip.Prefix, 0, max(0, min((k+1)*w.PerNode, w.N)-k*w.PerNode))
		for i := k * w.PerNode; i < min((k+1)*w.PerNode, w.N); i++ {
			cidrs = append(cidrs, w.Prefix(i))
		}
		c.Nodes = append(c.Nodes, validator.Node{Name: name, Addresses: addrs, Ready: true})
		c.CiliumNodes = append(c.CiliumNodes, validator.CiliumNode{Name: name, Addresses: addrs, PodCIDRs: cidrs})
	}
	return c
}
