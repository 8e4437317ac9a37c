package rib

import (
	"net/netip"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// dropKey identifies a dropped path: the pre-policy view and the path.
type dropKey struct {
	peer peerKey
	path pathKey
}

// dropTracker remembers since when each dropped path has been dropped, and
// a version that changes only when the set of drops changes.
type dropTracker struct {
	since   map[dropKey]time.Time
	version uint64
}

// PolicyDrops returns the paths a monitoring router received from a peer
// (pre-policy) and whose policy dropped them: absent from that peer's
// post-policy view (empty when the router sends post-policy views of other
// peers and none of this one) or, where the router sends no post-policy view
// at all, from the router's Loc-RIB; each with the time it was first seen so. The version changes
// only when the set of drops changes (its times do not).
func (s *Store) PolicyDrops() ([]validator.PolicyDrop, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	seen := map[dropKey]bool{}
	var out []validator.PolicyDrop
	locRIB := map[netip.Addr]map[netip.Prefix]bool{}
	sendsPost := map[netip.Addr]bool{} // BMP monitoring is configured per router, not per peer
	for k, e := range s.peers {
		if k.router.IsValid() && k.view == keyPostPolicy {
			sendsPost[k.router] = true
		}
		if k.router.IsValid() && k.typ == peerTypeLocRIB {
			m := locRIB[k.router]
			if m == nil {
				m = map[netip.Prefix]bool{}
				locRIB[k.router] = m
			}
			e.paths.each(func(p netip.Prefix, _ uint32, v uint32) (uint32, bool) { m[p] = true; return v, true })
		}
	}
	for k, e := range s.peers {
		if !k.router.IsValid() || k.view != keyPrePolicy || k.typ == peerTypeLocRIB {
			continue
		}
		post := k
		post.view = keyPostPolicy
		pe := s.peers[post] // nil: the router sent nothing post-policy of the peer, all of it was dropped
		hasPost := sendsPost[k.router]
		loc, hasLoc := locRIB[k.router]
		if !hasPost && !hasLoc {
			continue // nothing to compare with
		}
		e.paths.each(func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
			if hasPost && pe != nil && pe.paths.hasPrefix(p, id) || !hasPost && loc[p] {
				return v, true
			}
			dk := dropKey{k, pathKey{p, id}}
			seen[dk] = true
			since, ok := s.drops.since[dk]
			if !ok {
				since = now
				if s.drops.since == nil {
					s.drops.since = map[dropKey]time.Time{}
				}
				s.drops.since[dk], s.drops.version = now, s.drops.version+1
			}
			out = append(out, validator.PolicyDrop{Router: k.router.String(), Route: s.attrs.route(p, id, v), Since: since})
			return v, true
		})
	}
	for dk := range s.drops.since {
		if !seen[dk] {
			delete(s.drops.since, dk)
			s.drops.version++
		}
	}
	validator.SortPolicyDrops(out)
	return out, s.drops.version
}

// hasPrefix reports whether t holds a path for p: with path ID id, or
// without one (a router's views need not carry the same IDs).
func (t *pathTable) hasPrefix(p netip.Prefix, id uint32) bool {
	if _, ok := t.get(p, id); ok {
		return true
	}
	_, ok := t.get(p, 0)
	return ok
}
