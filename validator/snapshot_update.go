package validator

import "slices"

// updates is what a snapshot needs beyond NewSnapshot's indexes to take route
// events: the prefix chains linked both ways, and each route's position in its
// origin's route list. A withdrawn route's slot is filled by the last route, so
// a list can fall out of index order; it is marked dirty and sorted when read.
type updates struct {
	prev         []int32 // prev[i] is the route before i in its prefix chain, -1 for the head
	pos          []int32 // pos[i] is i's position in its origin's route list
	orphansDirty bool
}

// enableUpdates prepares the snapshot for addRoute and removeRoute.
func (s *Snapshot) enableUpdates() {
	u := &updates{prev: make([]int32, len(s.Routes)), pos: make([]int32, len(s.Routes))}
	for i := range u.prev {
		u.prev[i] = -1
	}
	for i, n := range s.next {
		if n >= 0 {
			u.prev[n] = int32(i)
		}
	}
	for _, v := range s.nodes {
		for j, i := range v.routes {
			u.pos[i] = int32(j)
		}
	}
	for j, i := range s.orphans {
		u.pos[i] = int32(j)
	}
	s.upd = u
}

// find returns the index of the route with r's identity (peer, prefix, path
// ID), walking r's prefix chain: a prefix has few routes, and the chains are
// kept for the rules anyway, where a map of identities cost ~50 MB and a
// third of an engine build at a million routes.
func (s *Snapshot) find(r *Route) (int32, bool) {
	i, ok := s.byPrefix.Get(r.Prefix)
	for ok && i >= 0 {
		if q := &s.Routes[i]; q.PathID == r.PathID && q.Peer == r.Attrs().Peer {
			return i, true
		}
		i = s.next[i]
	}
	return -1, false
}

// hasDuplicates reports whether two routes share an identity.
func (s *Snapshot) hasDuplicates() bool {
	for i := range s.next {
		for j := s.next[i]; j >= 0; j = s.next[j] {
			if a, b := &s.Routes[i], &s.Routes[j]; a.PathID == b.PathID && a.Peer == b.Peer {
				return true
			}
		}
	}
	return false
}

// list returns the route list route i is filed in, and marks it dirty.
func (s *Snapshot) list(i int, dirty bool) *[]int {
	if v := s.Origin(i).Node; v != nil {
		v.dirty = v.dirty || dirty
		return &v.routes
	}
	s.upd.orphansDirty = s.upd.orphansDirty || dirty
	return &s.orphans
}

// sortList sorts a dirty route list and re-records the positions in it.
func (s *Snapshot) sortList(l []int) {
	slices.Sort(l)
	for j, i := range l {
		s.upd.pos[i] = int32(j)
	}
}

// addRoute appends a route, attributes it and indexes it; it returns its index.
func (s *Snapshot) addRoute(r Route) int {
	i := len(s.Routes)
	if r.Attributes == nil {
		r.Attributes = new(Attributes) // as NewSnapshot fills them
	}
	s.Routes = append(s.Routes, r)
	s.origins.append(s.attribute(&s.Routes[i]))
	s.next, s.upd.prev = append(s.next, -1), append(s.upd.prev, -1)
	if head, ok := s.byPrefix.Get(r.Prefix); ok {
		s.next[i], s.upd.prev[head] = head, int32(i)
	}
	s.byPrefix.Set(r.Prefix, int32(i))
	l := s.list(i, false) // i is the highest index: the list stays in order
	s.upd.pos = append(s.upd.pos, int32(len(*l)))
	*l = append(*l, i)
	return i
}

// removeRoute removes route i; the last route takes its index.
func (s *Snapshot) removeRoute(i int) {
	u := s.upd
	nx, pv := s.next[i], u.prev[i]
	switch {
	case pv >= 0:
		s.next[pv] = nx
	case nx >= 0:
		s.byPrefix.Set(s.Routes[i].Prefix, nx)
	default:
		s.byPrefix.Del(s.Routes[i].Prefix)
	}
	if nx >= 0 {
		u.prev[nx] = pv
	}
	l := s.list(i, false)
	j, end := u.pos[i], len(*l)-1
	if moved := (*l)[end]; int(j) != end {
		(*l)[j], u.pos[moved] = moved, j
		s.list(i, true)
	}
	*l = (*l)[:end]
	last := len(s.Routes) - 1
	if i != last {
		s.moveRoute(last, i)
	}
	s.Routes[last] = Route{}
	s.Routes = s.Routes[:last]
	s.origins.truncate(last)
	s.next, u.prev, u.pos = s.next[:last], u.prev[:last], u.pos[:last]
}

// moveRoute moves route from to the free index to.
func (s *Snapshot) moveRoute(from, to int) {
	u := s.upd
	s.Routes[to] = s.Routes[from]
	s.origins.move(from, to)
	s.Routes[from] = Route{} // drop references held by the dead slot
	nx, pv := s.next[from], u.prev[from]
	s.next[to], u.prev[to] = nx, pv
	if pv >= 0 {
		s.next[pv] = int32(to)
	} else {
		s.byPrefix.Set(s.Routes[to].Prefix, int32(to))
	}
	if nx >= 0 {
		u.prev[nx] = int32(to)
	}
	l := s.list(to, true)
	(*l)[u.pos[from]], u.pos[to] = to, u.pos[from]
}
