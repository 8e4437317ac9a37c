package rib

import (
	"cmp"
	"slices"
)

// What only BMP tells about a monitored peer: the views the router sends of
// it, and a new BMP session's table starting over (Clear). Its session's
// start and end are Up and Down (session.go), as a direct peer's.

// monitoredUp records a monitored peer's session (BMP Peer Up), in each of
// its views.
func (s *Store) monitoredUp(p Peer, info PeerInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entryKey(p.key())
	s.sent.changes++
	for _, e := range s.views(p) {
		routes := e.info.Routes
		var view string
		if e.info.BMP != nil {
			view = e.info.BMP.View
		}
		e.info = info
		if info.BMP != nil {
			b := *info.BMP
			b.View = cmp.Or(view, b.View)
			e.info.BMP = &b
		}
		e.info.State, e.info.Since, e.info.Routes = "established", s.now(), routes
	}
	s.bump()
}

// SetView records that the router sends view of a monitored peer (p.View
// is ignored): a post-policy view takes over the peer's session information
// and, from now on, the rules judge it instead of the pre-policy view.
func (s *Store) SetView(p Peer, sysName, view string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.View = view
	_, existed := s.peers[p.key()]
	e := s.entryKey(p.key())
	for _, o := range s.views(p) {
		if o == e || existed {
			continue
		}
		e.info = o.info // the session's information, from the view that came first
		e.info.Routes, e.info.EndOfRIB = 0, nil
		if o.info.BMP == nil || o.info.BMP.View == "" {
			delete(s.peers, o.key) // Peer Up's placeholder, no view of its own
		}
	}
	b := BMPInfo{Router: p.Router}
	if e.info.BMP != nil {
		b = *e.info.BMP
	}
	b.SysName, b.View = sysName, view
	e.info.BMP = &b
	s.sent.changes++
	s.bump()
}

// Clear drops a monitored peer's paths, of every view, and keeps the peer
// (a new BMP session re-sends the full table).
func (s *Store) Clear(p Peer) { s.dropViews(p, false) }

// monitoredDown forgets a monitored peer and drops its paths, of every view.
func (s *Store) monitoredDown(p Peer) { s.dropViews(p, true) }

func (s *Store) dropViews(p Peer, forget bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.views(p) {
		s.sent.changes++
		s.drop(e, nil)
		if forget {
			delete(s.peers, e.key)
		}
		s.bump()
	}
}

// MonitoredPeers returns every peer monitored over BMP, one entry a view,
// sorted by router, then peer address, then view.
func (s *Store) MonitoredPeers() []PeerInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []PeerInfo
	for k, e := range s.peers {
		if k.router.IsValid() {
			info := e.info
			if info.BMP == nil {
				info.BMP = &BMPInfo{Router: k.router}
			} else {
				b := *info.BMP
				info.BMP = &b
			}
			info.BMP.Judged = !s.shadowed(k)
			info.Paths = info.Paths.clone()
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(a, b PeerInfo) int {
		if c := a.BMP.Router.Compare(b.BMP.Router); c != 0 {
			return c
		}
		if c := a.Address.Compare(b.Address); c != 0 {
			return c
		}
		return cmp.Compare(a.BMP.View, b.BMP.View)
	})
	return out
}
