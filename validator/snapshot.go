package validator

import (
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/routewarden/routewarden/validator/index"
)

// NodeView joins a Node with its CiliumNode. Either may be missing: a Node
// without a CiliumNode is not managed by Cilium; a CiliumNode without a Node is
// a leftover of a deleted node.
type NodeView struct {
	Name   string
	Node   *Node
	Cilium *CiliumNode
	// Allocated are the CIDRs the node routes under the cluster's IPAM mode.
	Allocated []Allocation
	// routes are the indexes of the routes attributed to the node.
	routes []int
	count  int // len(routes), counted before they are filled
	dirty  bool
}

// Current reports whether the node exists as a Kubernetes Node.
func (n *NodeView) Current() bool { return n.Node != nil }

// Managed reports whether Cilium manages the node (Node and CiliumNode exist).
func (n *NodeView) Managed() bool { return n.Node != nil && n.Cilium != nil }

// Snapshot is a cluster, a set of routes and what the ToRs showed of their
// policy, indexed for the rules.
type Snapshot struct {
	Cluster *Cluster
	Routes  []Route
	Policy  PolicyView
	Options Options

	origins    origins // of each route (Origin)
	nodes      map[string]*NodeView
	nodeNames  []string
	addrs      index.AddrMap[*NodeView] // current nodes' addresses
	orphanAddr index.AddrMap[*NodeView] // CiliumNodes without Node
	deleted    index.AddrMap[*DeletedNode]
	allocs     *allocTable
	podRanges  [2][]netip.Prefix
	// byPrefix holds the first route index of each prefix; next chains the
	// others (-1 ends a chain): no slice per prefix, as most have one route.
	byPrefix index.PrefixMap
	next     []int32
	// orphans are the indexes of routes with no current node.
	orphans []int
	slab    []NodeView // backs nodes: one allocation, not one per node
	// upd is set on an Engine's snapshot, whose routes change (snapshot_update.go).
	upd *updates
	// vip indexes the Services' VIPs, built on first use (vip_index.go).
	vip vipState
	// sent indexes Policy.PrePolicy (attribute_mismatch.go).
	sent map[sentKey]bool
}

// NewSnapshot indexes the cluster and attributes every route to its origin;
// pv is what the ToRs showed of their policy (the zero PolicyView when
// nothing).
func NewSnapshot(c *Cluster, routes []Route, pv PolicyView, opts Options) *Snapshot {
	routes = fillAttributes(routes)
	s := &Snapshot{Cluster: c, Routes: routes, Policy: pv, Options: opts,
		nodes: make(map[string]*NodeView, len(c.Nodes)), addrs: index.NewAddrMap[*NodeView](),
		orphanAddr: index.NewAddrMap[*NodeView](), deleted: index.NewAddrMap[*DeletedNode](),
		nodeNames: make([]string, 0, len(c.Nodes))}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		s.view(n.Name, len(c.Nodes)-i).Node = n
	}
	for i := range c.CiliumNodes {
		cn := &c.CiliumNodes[i]
		s.view(cn.Name, len(c.CiliumNodes)-i).Cilium = cn
	}
	slices.Sort(s.nodeNames)
	// Every node's allocations, in node order, in one array of which each
	// node's Allocated is a part (and the allocation table indexes it): a
	// million CIDRs are stored once, without regrowing.
	total := 0
	for _, name := range s.nodeNames {
		total += countAllocations(s.nodes[name], c.IPAM.Mode)
	}
	allocs := make([]Allocation, 0, total)
	for _, name := range s.nodeNames {
		v := s.nodes[name]
		start := len(allocs)
		allocs = appendAllocations(allocs, v, c.IPAM.Mode)
		v.Allocated = allocs[start:len(allocs):len(allocs)]
		target := s.addrs
		if !v.Current() {
			target = s.orphanAddr
		}
		for _, list := range v.addressLists() {
			for _, a := range list {
				if _, taken := target.Get(a); !taken {
					target.Set(a, v)
				}
			}
		}
	}
	for i := range c.Deleted {
		d := &c.Deleted[i]
		for _, a := range d.Addresses {
			if prev, ok := s.deleted.Get(a); !ok || d.DeletedAt.After(prev.DeletedAt) {
				s.deleted.Set(a, d)
			}
		}
	}
	for _, r := range c.IPAM.PodRanges {
		s.podRanges[family(r)] = append(s.podRanges[family(r)], r)
	}
	s.sent = s.indexPrePolicy(pv.PrePolicy)
	s.origins = newOrigins(len(routes))
	// Indexing prefixes, sorting the allocations and attributing origins
	// touch disjoint state: on a large snapshot they run side by side.
	var wg sync.WaitGroup
	if parallel(max(len(routes), len(allocs))) {
		wg.Go(s.indexPrefixes)
		wg.Go(func() { s.allocs = newAllocTable(allocs) })
	} else {
		s.indexPrefixes()
		s.allocs = newAllocTable(allocs)
	}
	orphans := 0
	for i := range routes {
		// Routes come grouped by peer, mostly with the same next hop: the
		// previous route's origin is a good guess.
		var o Origin
		if r, q := &routes[i], &routes[max(i-1, 0)]; i > 0 && (r.Attributes == q.Attributes ||
			r.NextHop == q.NextHop && r.Peer == q.Peer && r.RouterID == q.RouterID) {
			o = s.origins.get(i - 1)
		} else {
			o = s.attribute(r)
		}
		s.origins.set(i, o)
		if o.Node != nil {
			o.Node.count++
		} else {
			orphans++
		}
	}
	wg.Wait()
	s.groupRoutes(orphans)
	return s
}

// fillAttributes returns routes with empty attributes where a route has none,
// for the rules to read: a copy when it has to fill any, the caller's slice
// is left as it was.
func fillAttributes(routes []Route) []Route {
	i := slices.IndexFunc(routes, func(r Route) bool { return r.Attributes == nil })
	if i < 0 {
		return routes
	}
	routes = slices.Clone(routes)
	empty := new(Attributes)
	for ; i < len(routes); i++ {
		if routes[i].Attributes == nil {
			routes[i].Attributes = empty
		}
	}
	return routes
}

// view returns the view of node name, creating it; more is how many views
// the caller may still create, this one included (a slab of that many is
// allocated when the current one is full: a CiliumNode mostly joins its
// Node's view, so sizing the first for Nodes and CiliumNodes together left
// half of it unused, ~13 MB at 100k nodes).
func (s *Snapshot) view(name string, more int) *NodeView {
	v, ok := s.nodes[name]
	if !ok {
		if len(s.slab) == cap(s.slab) {
			s.slab = make([]NodeView, 0, max(64, more))
		}
		// A full slab is replaced, not grown: the pointers into it stay valid.
		s.slab = append(s.slab, NodeView{Name: name})
		v = &s.slab[len(s.slab)-1]
		s.nodes[name] = v
		s.nodeNames = append(s.nodeNames, name)
	}
	return v
}

// addresses returns the node's addresses: its Node's, then its CiliumNode's.
func (v *NodeView) addresses() []netip.Addr {
	lists := v.addressLists()
	return slices.Concat(lists[0], lists[1])
}

// addressLists returns the Node's and the CiliumNode's addresses, without
// copying them (a snapshot reads those of every node).
func (v *NodeView) addressLists() [2][]netip.Addr {
	var out [2][]netip.Addr
	if v.Node != nil {
		out[0] = v.Node.Addresses
	}
	if v.Cilium != nil {
		out[1] = v.Cilium.Addresses
	}
	return out
}

// Origin returns what attribution found for route i.
func (s *Snapshot) Origin(i int) Origin { return s.origins.get(i) }

// NodeNames returns every known node name (Nodes and CiliumNodes), sorted.
func (s *Snapshot) NodeNames() []string { return s.nodeNames }

// NodeView returns the joined view of a node, or nil.
func (s *Snapshot) NodeView(name string) *NodeView { return s.nodes[name] }

// Overlapping calls fn for every allocation overlapping p.
func (s *Snapshot) Overlapping(p netip.Prefix, fn func(Overlap)) { s.allocs.overlapping(p, fn) }

// AllocatedExactly returns the allocations equal to p.
func (s *Snapshot) AllocatedExactly(p netip.Prefix) []Allocation { return s.allocs.exactly(p) }

// RoutesFor returns the indexes of the routes for prefix p.
func (s *Snapshot) RoutesFor(p netip.Prefix) []int {
	head, ok := s.byPrefix.Get(p)
	if !ok {
		return nil
	}
	return s.chain(head)
}

func (s *Snapshot) chain(head int32) []int {
	var out []int
	for i := head; i >= 0; i = s.next[i] {
		out = append(out, int(i))
	}
	if s.upd != nil {
		slices.Sort(out) // updates link new routes first
	}
	return out
}

// RoutesOf returns the indexes of the routes attributed to node name.
func (s *Snapshot) RoutesOf(name string) []int {
	if name == "" {
		if s.upd != nil && s.upd.orphansDirty {
			s.upd.orphansDirty = false
			s.sortList(s.orphans)
		}
		return s.orphans
	}
	if v := s.nodes[name]; v != nil {
		if v.dirty {
			v.dirty = false
			s.sortList(v.routes)
		}
		return v.routes
	}
	return nil
}

// RangesKnown reports whether pod ranges are known for p's address family.
func (s *Snapshot) RangesKnown(p netip.Prefix) bool { return len(s.podRanges[family(p)]) > 0 }

// InPodRange reports whether p lies inside a pod range.
func (s *Snapshot) InPodRange(p netip.Prefix) bool { return inRanges(p, s.podRanges[family(p)]) }

// InServiceRange reports whether p lies inside a LoadBalancer pool or an allowed range, or is a Service's VIP.
func (s *Snapshot) InServiceRange(p netip.Prefix) bool {
	return inRanges(p, s.Cluster.LBPools) || inRanges(p, s.Options.AllowedRanges) || s.IsVIP(p)
}

// OutOfRange reports whether p is outside every known range, when ranges are known.
func (s *Snapshot) OutOfRange(p netip.Prefix) bool {
	return s.RangesKnown(p) && !s.InPodRange(p) && !s.InServiceRange(p)
}

// Ago renders how long ago t was, relative to Options.Now, as "3m ago".
func (s *Snapshot) Ago(t time.Time) string {
	if s.Options.Now.IsZero() || t.IsZero() {
		return ""
	}
	d := s.Options.Now.Sub(t).Round(time.Second)
	if d < 0 {
		d = 0
	}
	return d.String() + " ago"
}
