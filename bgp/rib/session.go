package rib

import (
	"net/netip"
	"slices"
	"time"
)

// A peer's session, for direct and monitored peers alike: Up, EndOfRIB and
// Down (monitored.go has what only BMP tells). A direct peer's session comes
// from GoBGP (the route feed), with graceful restart and an initial sync; the
// rest of this file is about those.

// Up records an established session. A direct peer starts its initial sync
// (its paths are staged until the End-of-RIB of each of info.Families);
// its paths kept stale through a graceful restart stay stale, with their
// deadline, until End-of-RIB or ExpireStale. A monitored peer's session is
// recorded in each of its views.
func (s *Store) Up(p Peer, info PeerInfo) {
	if p.Monitored() {
		s.monitoredUp(p, info)
		return
	}
	s.mu.Lock()
	e := s.entry(p.Address)
	routes, staleUntil, counts := e.info.Routes, e.info.StaleUntil, e.info.Paths
	e.info = info
	e.info.State, e.info.Since, e.info.Routes, e.info.StaleUntil = "established", s.now(), routes, staleUntil
	e.info.Paths = counts
	s.bump()
	s.mu.Unlock()
	s.sync.peerUp(p.Address, info.Families)
}

// EndOfRIB records a peer's End-of-RIB for a family. A direct peer's staged
// paths of the family are published first. The paths of that family that
// stayed stale through a graceful restart are dropped (RFC 4724 §4.2); stale
// paths of the peer's other families stay until their own End-of-RIB or the
// peer's restart time runs out (ExpireStale).
func (s *Store) EndOfRIB(p Peer, family string, isV6 bool) {
	if p.Monitored() {
		s.endOfRIB(p.key(), family, isV6)
		return
	}
	s.sync.endOfRIB(p.Address, family, isV6, func() { s.endOfRIB(p.key(), family, isV6) })
}

func (s *Store) endOfRIB(k peerKey, family string, isV6 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endOfRIBLocked(s.entryKey(k), family, isV6)
}

func (s *Store) endOfRIBLocked(e *peerEntry, family string, isV6 bool) {
	if !slices.Contains(e.info.EndOfRIB, family) {
		e.info.EndOfRIB = append(e.info.EndOfRIB, family)
	}
	staleLeft := false
	s.drop(e, func(p netip.Prefix, stale bool) bool {
		if stale && p.Addr().Is6() != isV6 {
			staleLeft = true
			return false
		}
		return stale
	})
	if !staleLeft {
		e.info.StaleUntil = time.Time{}
	}
	s.bump()
}

// Down handles a session that ended. A monitored peer is forgotten with the
// paths of every view (BMP Peer Down, or the end of the BMP session that
// monitored it; state and keep do not apply). A direct peer is left in
// state: what it staged is published, then its paths are dropped (GoBGP
// sends no withdrawals), or, when graceful restart was negotiated, kept as
// stale until keep has passed (ExpireStale drops them then).
func (s *Store) Down(p Peer, state string, keep time.Duration) {
	if p.Monitored() {
		s.monitoredDown(p)
		return
	}
	s.sync.flush(p.Address) // what arrived before the session ended, then the end
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(p.Address)
	if e.staged != nil {
		s.publish(e)
	}
	e.info.State, e.info.Since, e.info.EndOfRIB = state, s.now(), nil
	if keep <= 0 || e.paths.len() == 0 {
		s.drop(e, nil)
		e.info.StaleUntil = time.Time{}
	} else {
		logEach := s.logsEach(e.paths.len())
		e.paths.each(func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
			if logEach {
				s.logChange(e, p, id)
			}
			return v | staleBit, true
		})
		e.info.StaleUntil = s.now().Add(keep)
	}
	s.bump()
}

// PeerState records a direct peer's session state other than established,
// between sessions: a peer whose session is up keeps "established" until
// Down (the route feed reports a session's start and end; GoBGP's watch, on
// another goroutine, the states between sessions).
func (s *Store) PeerState(peer netip.Addr, state string, dynamic bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(peer)
	if e.info.State != state && e.info.State != "established" {
		e.info.State, e.info.Since, e.info.Dynamic = state, s.now(), dynamic
		s.bump()
	}
}

// SetRestartTime records a direct peer's graceful-restart time, unless the
// peer was forgotten meanwhile.
func (s *Store) SetRestartTime(peer netip.Addr, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.peers[peerKey{addr: peer}]; ok {
		e.info.RestartTime = d
	}
}

// SetSession marks the paths of a direct peer, visible and staged, as
// relayed by a ToR or not (validator.Attributes.Relayed: its role changed
// in the configuration) and with its session's local address
// (validator.Attributes.Local: known after the paths came).
func (s *Store) SetSession(peer netip.Addr, relayed bool, local netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.peers[peerKey{addr: peer}]
	if !ok {
		return
	}
	changed := false
	remark := func(log bool) func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
		return func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
			a := *s.attrs.sets[v&^staleBit].attrs
			if a.Relayed == relayed && a.Local == local {
				return v, true
			}
			a.Relayed, a.Local = relayed, local
			set := s.attrs.ref(&a, 1)
			s.attrs.unref(v &^ staleBit)
			if log {
				changed = true
				s.logChange(e, p, id)
			}
			return set | v&staleBit, true
		}
	}
	if e.staged != nil {
		e.staged.paths.each(remark(false))
	}
	e.paths.each(remark(s.logsEach(e.paths.len())))
	if changed || e.paths.len() > maxChangeLog/2 {
		s.bump()
	}
}

// DropFamily removes a direct peer's paths of one address family (IPv6 or
// IPv4), visible and staged: at a session's end, before Down, the family
// GoBGP does not keep through a graceful restart.
func (s *Store) DropFamily(peer netip.Addr, isV6 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.peers[peerKey{addr: peer}]
	if !ok {
		return
	}
	s.drop(e, func(p netip.Prefix, _ bool) bool { return p.Addr().Is6() == isV6 })
	s.dropStaged(e, isV6)
	s.bump()
}

// ExpireStale drops stale paths whose peer's restart time ran out; it returns
// when the next expiry is due (zero when none).
func (s *Store) ExpireStale(now time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next time.Time
	for _, e := range s.peers {
		if e.info.StaleUntil.IsZero() {
			continue
		}
		if !now.Before(e.info.StaleUntil) {
			s.drop(e, func(_ netip.Prefix, stale bool) bool { return stale })
			e.info.StaleUntil = time.Time{}
			s.bump()
			continue
		}
		if next.IsZero() || e.info.StaleUntil.Before(next) {
			next = e.info.StaleUntil
		}
	}
	return next
}

// Forget removes a direct peer that no longer exists (a dynamic peer without paths).
func (s *Store) Forget(peer netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.peers[peerKey{addr: peer}]; ok && e.paths.len() == 0 && e.staged == nil {
		delete(s.peers, peerKey{addr: peer})
		s.bump()
	}
}
