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
		if v, ok := s.addrs.Get(try.addr); ok && try.addr.IsValid() {
			return Origin{Node: v, By: try.by}
		}
	}
	var o Origin
	for _, a := range []netip.Addr{r.NextHop, r.Peer, r.RouterID} {
		if !a.IsValid() {
			continue
		}
		if v, ok := s.orphanAddr.Get(a); ok && o.Orphan == nil {
			o.Orphan = v
		}
		if d, ok := s.deleted.Get(a); ok && o.Deleted == nil {
			o.Deleted = d
		}
	}
	return o
}

// origins holds every route's Origin in 9 bytes a route (a 32-byte Origin
// each took 32 MB at a million routes): its current node and how it matched.
// The few routes without a current node that match an orphaned CiliumNode or
// a tombstone keep their Origin in a map.
type origins struct {
	owner []*NodeView
	by    []MatchedBy
	lost  map[int32]Origin
}

func newOrigins(n int) origins {
	return origins{owner: make([]*NodeView, n), by: make([]MatchedBy, n), lost: map[int32]Origin{}}
}

func (o *origins) get(i int) Origin {
	if v := o.owner[i]; v != nil {
		return Origin{Node: v, By: o.by[i]}
	}
	return o.lost[int32(i)]
}

func (o *origins) set(i int, x Origin) {
	o.owner[i], o.by[i] = x.Node, x.By
	if x.Node == nil && (x.Orphan != nil || x.Deleted != nil) {
		o.lost[int32(i)] = x
	} else if len(o.lost) > 0 {
		delete(o.lost, int32(i))
	}
}

func (o *origins) append(x Origin) {
	o.owner, o.by = append(o.owner, nil), append(o.by, 0)
	o.set(len(o.owner)-1, x)
}

// move moves route from's origin to index to, leaving from empty.
func (o *origins) move(from, to int) {
	o.set(to, o.get(from))
	o.set(from, Origin{})
}

// truncate keeps the first n origins.
func (o *origins) truncate(n int) {
	for i := n; i < len(o.owner); i++ {
		o.set(i, Origin{})
	}
	o.owner, o.by = o.owner[:n], o.by[:n]
}

// Attribute finds the origin of any route, in the snapshot or not (the API
// names a route's node with it).
func (s *Snapshot) Attribute(r Route) Origin {
	r.Attributes = r.Attrs()
	return s.attribute(&r)
}

// NodeAt names the current node owning address a, or "" when none does.
func (s *Snapshot) NodeAt(a netip.Addr) string {
	if v, ok := s.addrs.Get(a); ok && a.IsValid() {
		return v.Name
	}
	return ""
}
