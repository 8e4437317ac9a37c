package validator

import "net/netip"

// MatchedBy says which route attribute attributed a route to its origin.
type MatchedBy uint8

// The attributes attribution tries, in order.
const (
	ByNextHop MatchedBy = iota + 1
	ByPeer
	ByRouterID
)

func (m MatchedBy) String() string {
	switch m {
	case ByNextHop:
		return "next hop"
	case ByPeer:
		return "peer address"
	case ByRouterID:
		return "router ID"
	}
	return ""
}

// Origin is what attribution found for one route (32 bytes: the engine keeps
// one for each route).
type Origin struct {
	// Node is the current node the route belongs to; nil when it has none.
	Node *NodeView
	// Orphan is a CiliumNode without Node that matched when no current node did.
	Orphan *NodeView
	// Deleted is the tombstone that matched when nothing current did.
	Deleted *DeletedNode
	By      MatchedBy
}

// Name is the origin's node name, or "" when the route has no owner node.
func (o Origin) Name() string {
	if o.Node == nil {
		return ""
	}
	return o.Node.Name
}

func (s *Snapshot) attribute(r *Route) Origin {
	for _, try := range []struct {
		addr netip.Addr
		by   MatchedBy
	}{{r.NextHop, ByNextHop}, {r.Peer, ByPeer}, {r.RouterID, ByRouterID}} {
		if v, ok := s.addrs.get(try.addr); ok && try.addr.IsValid() {
			return Origin{Node: v, By: try.by}
		}
	}
	var o Origin
	for _, a := range []netip.Addr{r.NextHop, r.Peer, r.RouterID} {
		if !a.IsValid() {
			continue
		}
		if v, ok := s.orphanAddr.get(a); ok && o.Orphan == nil {
			o.Orphan = v
		}
		if d, ok := s.deleted.get(a); ok && o.Deleted == nil {
			o.Deleted = d
		}
	}
	return o
}
