package bgp

import (
	"net/netip"
	"slices"
)

// AwaitedPeers says whom warm-up still waits for: the static neighbors that
// have not sent End-of-RIB for every family their session negotiated, and the
// groups (indices into groups, a node's addresses) none of whose addresses has.
func (c *Collector) AwaitedPeers(groups [][]netip.Addr) (static []netip.Addr, waiting []int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	eor := map[netip.Addr]bool{}
	for _, p := range c.store.Peers() {
		eor[p.Address] = len(p.EndOfRIB) > 0 && !slices.ContainsFunc(p.Families, func(f string) bool {
			return !slices.Contains(p.EndOfRIB, f)
		})
	}
	for _, n := range c.cfg.Neighbors {
		if !eor[n.Address] {
			static = append(static, n.Address)
		}
	}
	for i, g := range groups {
		if !slices.ContainsFunc(g, func(a netip.Addr) bool { return eor[a] }) {
			waiting = append(waiting, i)
		}
	}
	return static, waiting
}
