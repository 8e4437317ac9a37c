package rib

import (
	"net/netip"
)

// Update applies one UPDATE's paths of peer p (announcements and
// withdrawals; every announced prefix gets b.Attrs): the one way paths get
// into the store, for direct and monitored peers alike. A direct peer's paths
// are staged while it sends its initial table (initial_sync.go) and become
// visible at its End-of-RIB; a monitored peer's view records when it changed.
func (s *Store) Update(p Peer, b *Paths) {
	if !p.Monitored() {
		s.sync.update(p.Address, b)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.apply(p.key(), b)
	if e.info.BMP == nil {
		e.info.BMP = &BMPInfo{Router: p.Router, View: p.View}
	}
	e.info.BMP.Updated = s.now()
	s.bump()
}

// apply makes b visible in k's paths at once (mu held; the caller bumps).
func (s *Store) apply(k peerKey, b *Paths) *peerEntry {
	e := s.entryKey(k)
	for _, n := range b.Withdrawn {
		s.withdraw(e, n.Prefix, n.PathID)
	}
	if len(b.Announced) > 0 {
		set := s.attrs.ref(&b.Attrs, len(b.Announced))
		for _, n := range b.Announced {
			s.announce(e, n.Prefix, n.PathID, set)
		}
	}
	e.info.Routes = e.paths.len()
	return e
}

func (s *Store) withdraw(e *peerEntry, p netip.Prefix, id uint32) {
	if old, ok := e.paths.del(p, id); ok {
		s.attrs.unref(old &^ staleBit)
		s.logChange(e, p, id)
	}
}

// announce stores a path whose attribute set is already referenced.
func (s *Store) announce(e *peerEntry, p netip.Prefix, id, set uint32) {
	old, ok := e.paths.put(p, id, set)
	if ok {
		s.attrs.unref(old &^ staleBit)
	}
	if !ok || old != set {
		s.logChange(e, p, id)
	}
}

// drop removes a peer's paths (all, or only those match says; stale: kept
// through a graceful restart).
func (s *Store) drop(e *peerEntry, match func(p netip.Prefix, stale bool) bool) {
	logEach := s.logsEach(e.paths.len())
	e.paths.each(func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
		if match != nil && !match(p, v&staleBit != 0) {
			return v, true
		}
		s.attrs.unref(v &^ staleBit)
		if logEach {
			s.logChange(e, p, id)
		}
		return 0, false
	})
	e.info.Routes = e.paths.len()
}
