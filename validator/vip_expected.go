package validator

import "slices"

// AnnouncerIndex answers which nodes are expected to announce a Service's
// VIPs, for the Services of one cluster: it indexes the nodes by name once,
// so a Service with externalTrafficPolicy Local finds its announcers from its
// endpoints instead of a walk over every node (at 5,000 nodes and 10,000
// Services that walk was 50M lookups for each validation, and again for the
// convergence tracker's expected routes).
type AnnouncerIndex struct {
	c      *Cluster
	byName map[string]int32 // a name's first node in c.Nodes
	next   []int32          // the next node of the same name (-1: none)
}

// NewAnnouncerIndex indexes c's nodes; c must not change while it is used.
func NewAnnouncerIndex(c *Cluster) *AnnouncerIndex {
	x := &AnnouncerIndex{c: c, byName: make(map[string]int32, len(c.Nodes)), next: make([]int32, len(c.Nodes))}
	for i := len(c.Nodes) - 1; i >= 0; i-- {
		first, ok := x.byName[c.Nodes[i].Name]
		if !ok {
			first = -1
		}
		x.next[i], x.byName[c.Nodes[i].Name] = first, int32(i)
	}
	return x
}

// Expected returns, in the cluster's node order, the nodes expected to
// announce the Service's VIPs: the nodes Cilium's BGP configuration selects
// (Cluster.BGPSelects)
// and, with externalTrafficPolicy Local, only those with a ready endpoint of
// it. Readiness is the caller's to judge.
func (x *AnnouncerIndex) Expected(svc *Service) []*Node {
	c := x.c
	selected := func(n *Node) bool { return c.BGPSelects(n.Name) }
	var out []*Node
	if !svc.LocalTraffic() {
		for i := range c.Nodes {
			if selected(&c.Nodes[i]) {
				out = append(out, &c.Nodes[i])
			}
		}
		return out
	}
	var at []int32
	for _, e := range svc.Endpoints {
		first, ok := x.byName[e.NodeName]
		if !e.Ready || !ok || slices.Contains(at, first) {
			continue
		}
		for i := first; i >= 0; i = x.next[i] {
			at = append(at, i)
		}
	}
	slices.Sort(at)
	for _, i := range at {
		if n := &c.Nodes[i]; selected(n) {
			out = append(out, n)
		}
	}
	return out
}
