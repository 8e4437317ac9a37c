package validator

import (
	"net/netip"
	"slices"
)

// NodeStatus is one node's allocations next to what it announces.
type NodeStatus struct {
	Name      string         `json:"name"`
	Ready     bool           `json:"ready"`
	Managed   bool           `json:"managed"`
	Current   bool           `json:"current"`
	Addresses []netip.Addr   `json:"addresses"`
	Allocated []netip.Prefix `json:"allocated"`
	Announced []netip.Prefix `json:"announced"`
}

// NodeStatuses lists every node (Nodes and CiliumNodes) with its allocated
// CIDRs and the prefixes attributed to it, sorted by name.
func NodeStatuses(c *Cluster, routes []Route) []NodeStatus {
	s := NewSnapshot(c, routes, PolicyView{}, Options{})
	out := make([]NodeStatus, 0, len(s.NodeNames()))
	for _, name := range s.NodeNames() {
		v := s.NodeView(name)
		ns := NodeStatus{Name: name, Managed: v.Managed(), Current: v.Current(), Addresses: v.addresses(),
			Allocated: []netip.Prefix{}, Announced: []netip.Prefix{}}
		if v.Node != nil {
			ns.Ready = v.Node.Ready
		}
		for _, a := range v.Allocated {
			ns.Allocated = append(ns.Allocated, a.Prefix)
		}
		for _, i := range s.RoutesOf(name) {
			if p := s.Routes[i].Prefix; !slices.Contains(ns.Announced, p) {
				ns.Announced = append(ns.Announced, p)
			}
		}
		slices.SortFunc(ns.Announced, comparePrefix)
		out = append(out, ns)
	}
	return out
}
