package monitor

import "net/netip"

// AwaitingWarmup is a Warmup that can say whom it waits for: the static
// neighbors without End-of-RIB, and the groups of addresses (a node's, as
// ExpectedPeers gives them) none of which has sent it.
type AwaitingWarmup interface {
	AwaitedPeers(groups [][]netip.Addr) (static []netip.Addr, waiting []int)
}

// AwaitedPeer is a peer warm-up waits for: a static neighbor (no Node), or a
// node expected to peer from a dynamic range (Addresses: the ones it may use).
type AwaitedPeer struct {
	Node      string       `json:"node,omitempty"`
	Addresses []netip.Addr `json:"addresses"`
}

func awaited(aw AwaitingWarmup, names []string, groups [][]netip.Addr) []AwaitedPeer {
	static, waiting := aw.AwaitedPeers(groups)
	out := make([]AwaitedPeer, 0, len(static)+len(waiting))
	for _, a := range static {
		out = append(out, AwaitedPeer{Addresses: []netip.Addr{a}})
	}
	for _, i := range waiting {
		out = append(out, AwaitedPeer{Node: names[i], Addresses: groups[i]})
	}
	return out
}
