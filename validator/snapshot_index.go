package validator

import (
	"slices"

	"github.com/routewarden/routewarden/validator/index"
)

// indexPrefixes chains the routes of each prefix, in index order.
func (s *Snapshot) indexPrefixes() {
	s.byPrefix = index.NewPrefixMap(len(s.Routes))
	s.next = make([]int32, len(s.Routes))
	if slices.IsSortedFunc(s.Routes, func(a, b Route) int { return comparePrefix(a.Prefix, b.Prefix) }) {
		// A table in prefix order (the BGP store's) has each prefix's routes
		// side by side: one map write per prefix and no lookup.
		for i := len(s.Routes) - 1; i >= 0; i-- {
			s.next[i] = -1
			if i+1 < len(s.Routes) && s.Routes[i+1].Prefix == s.Routes[i].Prefix {
				s.next[i] = int32(i + 1)
			}
			if i == 0 || s.Routes[i-1].Prefix != s.Routes[i].Prefix {
				s.byPrefix.Set(s.Routes[i].Prefix, int32(i))
			}
		}
		return
	}
	for i := len(s.Routes) - 1; i >= 0; i-- {
		p := s.Routes[i].Prefix
		if head, ok := s.byPrefix.Get(p); ok {
			s.next[i] = head
		} else {
			s.next[i] = -1
		}
		s.byPrefix.Set(p, int32(i))
	}
}

// groupRoutes fills every node's route list (and the orphans') from one
// backing array, in index order; attribution has counted them.
func (s *Snapshot) groupRoutes(orphans int) {
	backing := make([]int, len(s.Routes))
	off := 0
	for _, name := range s.nodeNames {
		v := s.nodes[name]
		n := v.count
		v.routes = backing[off : off : off+n]
		off += n
	}
	s.orphans = backing[off : off : off+orphans]
	for i, v := range s.origins.owner {
		if v != nil {
			v.routes = append(v.routes, i)
		} else {
			s.orphans = append(s.orphans, i)
		}
	}
}
