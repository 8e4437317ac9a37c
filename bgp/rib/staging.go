package rib

import (
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator"
)

// Staging: while a peer sends its initial table (initialSync), its paths go
// into a table of their own, which Routes, Len, Peers and Version ignore, and
// become the peer's paths at once when the table is published (End-of-RIB).
// Publishing an address family the peer has no visible path of is a swap;
// otherwise (paths kept stale through a graceful restart) the staged paths
// replace them one by one. So a million paths are stored while they arrive,
// on the route feed's goroutine, instead of all after End-of-RIB, and are
// never held twice.
type stagedTable struct {
	paths pathTable
	// withdrawn are the withdrawals that came while the peer's visible
	// table had paths (stale ones, kept through a graceful restart),
	// applied to it at publication, before the staged paths.
	withdrawn []pathKey
}

// stagePaths is Update for a direct peer in its initial sync: nothing
// changes for readers until publishStaged. While a peer stages, nothing else
// may write its visible paths (initialSync sends all of a peer's UPDATEs one
// way or the other, under its own lock), or publication would reorder them.
func (s *Store) stagePaths(peer netip.Addr, attrs *validator.Attributes, announced, withdrawn []NLRI) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(peer)
	if e.staged == nil {
		e.staged = &stagedTable{paths: newPathTable()}
	}
	st := e.staged
	for _, n := range withdrawn {
		if old, ok := st.paths.del(n.Prefix, n.PathID); ok {
			s.attrs.unref(old &^ staleBit)
		}
		if e.paths.len() > 0 {
			st.withdrawn = append(st.withdrawn, pathKey{n.Prefix, n.PathID})
		}
	}
	if len(announced) > 0 {
		set := s.attrs.ref(attrs, len(announced))
		for _, n := range announced {
			if old, ok := st.paths.put(n.Prefix, n.PathID, set); ok {
				s.attrs.unref(old &^ staleBit)
			}
		}
	}
}

// publishStagedFamily makes a peer's staged paths of one address family its
// paths (that family's End-of-RIB came); the other family's stay staged.
func (s *Store) publishStagedFamily(peer netip.Addr, isV6 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.peers[peerKey{addr: peer}]
	if !ok || e.staged == nil {
		return
	}
	rest := e.staged
	part := &stagedTable{paths: rest.paths.split(isV6)}
	rest.withdrawn = slices.DeleteFunc(rest.withdrawn, func(k pathKey) bool {
		if k.prefix.Addr().Is6() != isV6 {
			return false
		}
		part.withdrawn = append(part.withdrawn, k)
		return true
	})
	if part.paths.len() == 0 && len(part.withdrawn) == 0 {
		return
	}
	e.staged = part
	s.publish(e)
	e.staged = rest
	s.bump()
}

// publishStaged makes a peer's staged paths its paths.
func (s *Store) publishStaged(peer netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.peers[peerKey{addr: peer}]; ok && e.staged != nil {
		s.publish(e)
		s.bump()
	}
}

func (s *Store) publish(e *peerEntry) {
	st := e.staged
	e.staged = nil
	for _, k := range st.withdrawn {
		s.withdraw(e, k.prefix, k.id)
	}
	logEach := s.logsEach(st.paths.len()) // announce logs each unless this starts the log over
	moved := e.paths.adopt(&st.paths)
	if logEach {
		moved.each(func(p netip.Prefix, id, v uint32) (uint32, bool) {
			s.logChange(e, p, id)
			return v, true
		})
	}
	st.paths.each(func(p netip.Prefix, id, v uint32) (uint32, bool) {
		s.announce(e, p, id, v) // the staged path's reference moves with it
		return v, true
	})
	e.info.Routes = e.paths.len()
}

// dropStaged drops the staged paths of one address family.
func (s *Store) dropStaged(e *peerEntry, isV6 bool) {
	if e.staged == nil {
		return
	}
	e.staged.paths.each(func(p netip.Prefix, _, v uint32) (uint32, bool) {
		if p.Addr().Is6() != isV6 {
			return v, true
		}
		s.attrs.unref(v &^ staleBit)
		return 0, false
	})
}
