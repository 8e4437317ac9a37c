package rib

import (
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator"
)

// sentTracker keeps the last PrePolicy result and a version that changes
// only when it does.
type sentTracker struct {
	last    []validator.Route
	version uint64
}

// PrePolicy returns the paths of the BMP-monitored peers' pre-policy views
// that the rules do not judge because the router sends the peer's
// post-policy view too (shadowed): what the nodes sent, which the rule
// attribute-mismatch judges (validator.Cluster.PrePolicy). They are sorted
// by prefix, router, peer, then path ID; the version changes only when
// they do.
func (s *Store) PrePolicy() ([]validator.Route, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []validator.Route
	for k, e := range s.peers {
		if !s.shadowed(k) {
			continue
		}
		e.paths.each(func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
			out = append(out, s.attrs.route(p, id, v))
			return v, true
		})
	}
	slices.SortFunc(out, func(a, b validator.Route) int {
		if c := a.Prefix.Addr().Compare(b.Prefix.Addr()); c != 0 {
			return c
		}
		if c := a.Prefix.Bits() - b.Prefix.Bits(); c != 0 {
			return c
		}
		if c := a.Attrs().Router.Compare(b.Attrs().Router); c != 0 {
			return c
		}
		if c := a.Attrs().Peer.Compare(b.Attrs().Peer); c != 0 {
			return c
		}
		return int(a.PathID) - int(b.PathID)
	})
	if !slices.EqualFunc(out, s.sent.last, func(a, b validator.Route) bool {
		return a.Prefix == b.Prefix && a.PathID == b.PathID && a.Stale == b.Stale && a.Attributes == b.Attributes
	}) {
		s.sent.last = out
		s.sent.version++
	}
	return s.sent.last, s.sent.version
}
