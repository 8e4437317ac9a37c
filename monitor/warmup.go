package monitor

import (
	"net/netip"
	"slices"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// PeerWarmup is a Warmup that can also end warm-up from the cluster: with
// dynamic neighbors the collector cannot know who will connect, but the
// inventory can. Warm-up ends when every Ready node managed by Cilium (it has
// a CiliumNode) with an address in a dynamic range, and every static
// neighbor, has sent End-of-RIB for its families; WarmupTimeout stays the
// backstop for nodes that never do.
type PeerWarmup interface {
	Warmup
	// DynamicRanges are the ranges dynamic neighbors connect from.
	DynamicRanges() []netip.Prefix
	// WarmedUpPeers reports whether every static neighbor has sent End-of-RIB
	// for every family it negotiated, and of each group one address has.
	WarmedUpPeers(groups [][]netip.Addr) bool
}

// ExpectedPeers returns, for each Ready, Cilium-managed node with an address
// in ranges, the node's addresses in ranges (sorted by node name): the node
// peers from one of them.
func ExpectedPeers(c *validator.Cluster, ranges []netip.Prefix) [][]netip.Addr {
	_, groups := expectedPeerNodes(c, ranges)
	return groups
}

// expectedPeerNodes is ExpectedPeers with the name of each group's node.
func expectedPeerNodes(c *validator.Cluster, ranges []netip.Prefix) (names []string, groups [][]netip.Addr) {
	if c == nil || len(ranges) == 0 {
		return nil, nil
	}
	managed := map[string][]netip.Addr{}
	for _, cn := range c.CiliumNodes {
		managed[cn.Name] = cn.Addresses
	}
	nodes := slices.Clone(c.Nodes)
	slices.SortFunc(nodes, func(a, b validator.Node) int { return compareStrings(a.Name, b.Name) })
	for _, n := range nodes {
		cnAddrs, ok := managed[n.Name]
		if !ok || !n.Ready {
			continue
		}
		var in []netip.Addr
		for _, a := range append(slices.Clone(n.Addresses), cnAddrs...) {
			if inRanges(a, ranges) && !slices.Contains(in, a) {
				in = append(in, a)
			}
		}
		if len(in) > 0 {
			names, groups = append(names, n.Name), append(groups, in)
		}
	}
	return names, groups
}

func inRanges(a netip.Addr, ranges []netip.Prefix) bool {
	return slices.ContainsFunc(ranges, func(p netip.Prefix) bool { return p.Contains(a.Unmap()) })
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// warmedUp reports whether warm-up may end before its timeout. From the
// inventory, once it has ended it stays ended: a node added later is a
// change to validate, not a reason to go blind again. On the way it notes
// whom warm-up waits for (l.awaiting), when the Warmup can say.
func (l *Loop) warmedUp(now time.Time) bool {
	l.awaiting = nil
	if l.warm == nil || l.warmEnded {
		return l.warmEnded
	}
	aw, _ := l.warm.(AwaitingWarmup)
	if pw, ok := l.warm.(PeerWarmup); ok {
		if ranges := pw.DynamicRanges(); len(ranges) > 0 {
			if c, _, err := l.cluster.Cluster(now); err == nil {
				if names, groups := expectedPeerNodes(c, ranges); len(groups) > 0 {
					l.warmEnded = pw.WarmedUpPeers(groups)
					if aw != nil && !l.warmEnded {
						l.awaiting = awaited(aw, names, groups)
					}
					return l.warmEnded
				}
			}
		}
	}
	if aw != nil {
		l.awaiting = awaited(aw, nil, nil)
	}
	return l.warm.WarmedUp()
}
