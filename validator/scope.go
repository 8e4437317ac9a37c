package validator

import "net/netip"

// Scope: which routes are the cluster's business. A ToR's table holds the
// network's routes beside the cluster's: a spine's default route, uplinks,
// the ToR's own connected routes, another tenant's prefixes. Those are
// counted (Summary.NetworkRoutes) and shown, never judged.
//
// A route is the cluster's when a node announces it (a current node, a
// CiliumNode without Node, or a deleted node: an address that was a
// node's), or when its prefix lies in the cluster's own address space: a
// node's allocated CIDR, a pod range, a LoadBalancer pool or a Service's
// VIP. Options.NetworkRanges carve the network's ranges out of the pod
// ranges and pools (a pod range 10.0.0.0/8 whose 10.255.0.0/16 holds the
// uplinks); never out of a node's allocation or a VIP. Options.AllowedRanges
// are ranges anyone may announce: a router's route there is not the
// cluster's either (a node's is judged as any node's).

// Network reports whether route i is the network's, not the cluster's.
func (s *Snapshot) Network(i int) bool {
	o := s.Origin(i)
	if o.Node != nil || o.Orphan != nil || o.Deleted != nil {
		return false
	}
	return s.networkPrefix(s.Routes[i].Prefix)
}

// networkPrefix reports whether p, announced by no node, is the network's.
func (s *Snapshot) networkPrefix(p netip.Prefix) bool {
	if s.allocatedSpace(p) || s.IsVIP(p) {
		return false
	}
	if inRanges(p, s.Options.NetworkRanges) {
		return true
	}
	return !s.InPodRange(p) && !inRanges(p, s.Cluster.LBPools)
}

// allocatedSpace reports whether p lies inside (or is) a node's allocation.
func (s *Snapshot) allocatedSpace(p netip.Prefix) bool {
	in := false
	s.Overlapping(p, func(ov Overlap) { in = in || ov.Rel != RelCovering })
	return in
}

// networkRoutes counts the routes that are the network's: only routes of
// no current node can be (Snapshot.RoutesOf("")).
func (s *Snapshot) networkRoutes() int {
	n := 0
	for _, i := range s.RoutesOf("") {
		if s.Network(i) {
			n++
		}
	}
	return n
}
