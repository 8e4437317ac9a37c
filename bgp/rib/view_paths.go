package bgp

import (
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator"
)

// ViewPath is a path of one view of a BMP-monitored peer.
type ViewPath struct {
	// Router is the monitoring router (the ToR); View the RIB the path is in.
	Router netip.Addr
	View   string
	validator.Route
}

// ViewPaths returns the paths of every BMP-monitored peer's view named view
// (ViewPrePolicy, ViewPostPolicy, ViewLocRIB), judged by the rules or not,
// sorted by prefix, router, then peer: the API shows what each view holds.
func (s *Store) ViewPaths(view string) []ViewPath {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []ViewPath
	for k, e := range s.peers {
		if !k.router.IsValid() || viewOf(k) != view {
			continue
		}
		e.paths.each(func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
			out = append(out, ViewPath{Router: k.router, View: view, Route: s.attrs.route(p, id, v)})
			return v, true
		})
	}
	slices.SortFunc(out, func(a, b ViewPath) int {
		if c := a.Prefix.Addr().Compare(b.Prefix.Addr()); c != 0 {
			return c
		}
		if c := a.Prefix.Bits() - b.Prefix.Bits(); c != 0 {
			return c
		}
		if c := a.Router.Compare(b.Router); c != 0 {
			return c
		}
		return a.Attrs().Peer.Compare(b.Attrs().Peer)
	})
	return out
}

func viewOf(k peerKey) string {
	switch {
	case k.typ == peerTypeLocRIB:
		return ViewLocRIB
	case k.view == keyPostPolicy:
		return ViewPostPolicy
	}
	return ViewPrePolicy
}
