package rib

import (
	"net/netip"

	"github.com/routewarden/routewarden/validator"
)

// UpdateRoutes applies routes of one direct peer (announcements and
// withdrawals) at once, each announced route with its own attributes,
// past the initial sync: the tests' way to fill a store.
func (s *Store) UpdateRoutes(peer netip.Addr, announced []validator.Route, withdrawn []validator.Route) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(peer)
	for i := range withdrawn {
		s.withdraw(e, withdrawn[i].Prefix, withdrawn[i].PathID)
	}
	for i := range announced {
		r := &announced[i]
		s.announce(e, r.Prefix, r.PathID, s.attrs.ref(r.Attrs(), 1))
	}
	e.info.Routes = e.paths.len()
	s.bump()
}

// updateNow is Update with the paths given apart, past a direct peer's
// initial sync (its paths are visible at once).
func (s *Store) updateNow(p Peer, attrs *validator.Attributes, announced, withdrawn []NLRI) {
	b := &Paths{Attrs: *attrs, Announced: announced, Withdrawn: withdrawn}
	if p.Monitored() {
		s.Update(p, b)
		return
	}
	storeSync{s}.apply(p.Address, b)
}
