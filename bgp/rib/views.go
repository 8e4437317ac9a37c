package rib

import (
	"cmp"
	"net/netip"
	"slices"
	"sync"

	"github.com/routewarden/routewarden/validator"
)

// The views of a BMP-monitored peer (RFC 7854 pre- and post-policy
// Adj-RIB-In; RFC 9069 Loc-RIB, a peer of its own, type 3) are held apart:
// the rules judge the post-policy view where the router sends one, else the
// pre-policy view (shadowed reports the other), and PolicyDrops compares the
// two for the rule filtered-at-tor.
const (
	ViewPrePolicy  = "pre-policy"
	ViewPostPolicy = "post-policy"
	ViewLocRIB     = "loc-rib"
)

// The view part of a peerKey: a direct peer's paths, and a monitored peer's
// pre-policy or Loc-RIB paths, are keyPrePolicy.
const (
	keyPrePolicy uint8 = iota
	keyPostPolicy
)

// peerTypeLocRIB is the BMP peer type of a router's Loc-RIB (RFC 9069).
const peerTypeLocRIB = 3

func withView(p Peer, view string) Peer { p.View = view; return p }

// views returns the entries of each view held of monitored peer p.
func (s *Store) views(p Peer) []*peerEntry {
	var out []*peerEntry
	for _, v := range []string{ViewPrePolicy, ViewPostPolicy} {
		if e, ok := s.peers[withView(p, v).key()]; ok {
			out = append(out, e)
		}
	}
	return out
}

// shadowed reports whether k is a monitored peer's pre-policy view while
// the store holds its post-policy view: the rules do not judge it.
func (s *Store) shadowed(k peerKey) bool {
	if !k.router.IsValid() || k.view != keyPrePolicy || k.typ == peerTypeLocRIB {
		return false
	}
	k.view = keyPostPolicy
	_, ok := s.peers[k]
	return ok
}

// postPolicy reports whether k's paths are as its router holds them after
// its inbound policy (post-policy Adj-RIB-In, Loc-RIB): their attribute sets
// carry the mark (validator.Attributes.PostPolicy).
func postPolicy(k peerKey) bool { return k.view == keyPostPolicy || k.typ == peerTypeLocRIB }

func viewOf(k peerKey) string {
	switch {
	case k.typ == peerTypeLocRIB:
		return ViewLocRIB
	case k.view == keyPostPolicy:
		return ViewPostPolicy
	}
	return ViewPrePolicy
}

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

// sentTracker keeps the last PrePolicy result, a version that changes only
// when it does, and a count of the changes that may alter it (noteSent), so
// that a call finding none returns the last result without a scan.
type sentTracker struct {
	mu      sync.Mutex // PrePolicy's own: it scans under the store's read lock
	changes uint64     // under the store's mu
	seen    uint64     // changes at the last scan
	scans   int        // how many times PrePolicy scanned (tests)
	last    []validator.Route
	version uint64
}

// noteSent records (mu held) that monitored peer k's paths, or whether the
// store holds its views, changed: a shadowed view's paths are PrePolicy's,
// and a view that comes or goes changes which are shadowed.
func (s *Store) noteSent(k peerKey, created bool) {
	if k.router.IsValid() && (created || s.shadowed(k)) {
		s.sent.changes++
	}
}

// PrePolicy returns the paths of the BMP-monitored peers' pre-policy views
// that the rules do not judge because the router sends the peer's
// post-policy view too (shadowed): what the nodes sent, which the rule
// attribute-mismatch judges (validator.Cluster.PrePolicy). They are sorted
// by prefix, peer (comparePeerKeys), then path ID; the version changes only
// when they do. Without a change since the last call it returns that
// call's result at once.
func (s *Store) PrePolicy() ([]validator.Route, uint64) {
	s.sent.mu.Lock()
	defer s.sent.mu.Unlock()
	s.mu.RLock()
	if s.sent.scans > 0 && s.sent.seen == s.sent.changes {
		s.mu.RUnlock()
		return s.sent.last, s.sent.version
	}
	s.sent.seen = s.sent.changes
	s.sent.scans++
	var keys []peerKey
	for k := range s.peers {
		if s.shadowed(k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, comparePeerKeys)
	type ranked struct {
		rank int
		validator.Route
	}
	var paths []ranked
	for i, k := range keys {
		s.peers[k].paths.each(func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
			paths = append(paths, ranked{i, s.attrs.route(p, id, v)})
			return v, true
		})
	}
	s.mu.RUnlock()
	slices.SortFunc(paths, func(a, b ranked) int {
		if c := a.Prefix.Addr().Compare(b.Prefix.Addr()); c != 0 {
			return c
		}
		if c := a.Prefix.Bits() - b.Prefix.Bits(); c != 0 {
			return c
		}
		if c := a.rank - b.rank; c != 0 {
			return c
		}
		return cmp.Compare(a.PathID, b.PathID)
	})
	out := make([]validator.Route, len(paths))
	for i := range paths {
		out[i] = paths[i].Route
	}
	if !slices.EqualFunc(out, s.sent.last, func(a, b validator.Route) bool {
		return a.Prefix == b.Prefix && a.PathID == b.PathID && a.Stale == b.Stale && a.Attributes == b.Attributes
	}) {
		s.sent.last = out
		s.sent.version++
	}
	return s.sent.last, s.sent.version
}
