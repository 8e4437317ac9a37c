package rib

import (
	"net/netip"

	"github.com/routewarden/routewarden/validator"
)

// The change log: which paths changed at which version, so that a reader
// holding the table of an earlier version (the validation loop's engine) can
// catch up from the changes instead of copying the whole table again (at a
// million paths: ~0.3 s and 170 MB per validation, for one route event).
// It keeps the last maxChangeLog changes; a reader further behind, or a
// store with BMP-monitored peers (whose paths can share an identity with a
// direct peer's), gets the whole table instead.
const maxChangeLog = 1 << 13 // ~600 KB

type changeLog struct {
	from    uint64 // the changes after this version are all in entries
	entries []pathChange
}

// pathChange is a change of a direct peer's path (a BMP-monitored peer's
// starts the log over).
type pathChange struct {
	version uint64 // the version the change is part of
	peer    netip.Addr
	prefix  netip.Prefix
	id      uint32
}

// logChange records that a path of e changed in the version being made. A
// BMP-monitored peer's change starts the log over instead: its identity can be
// a direct peer's, which a reader catching up could confuse with it.
func (s *Store) logChange(e *peerEntry, p netip.Prefix, id uint32) {
	l := &s.log
	if e.key.router.IsValid() {
		s.log = changeLog{from: s.version + 1, entries: l.entries[:0]}
		return
	}
	if len(l.entries) >= maxChangeLog {
		half := len(l.entries) / 2
		l.from = l.entries[half-1].version
		l.entries = append(l.entries[:0], l.entries[half:]...)
	}
	l.entries = append(l.entries, pathChange{version: s.version + 1, peer: e.key.addr, prefix: p, id: id})
}

// logsEach reports whether a change of up to n paths in the version being
// made is logged path by path; a larger one (a session's end, a table
// published) starts the log over after it.
func (s *Store) logsEach(n int) bool {
	if n <= maxChangeLog/2 {
		return true
	}
	s.log = changeLog{from: s.version + 1, entries: s.log.entries[:0]}
	return false
}

// Changes returns the paths that changed since version since, as they are
// now (changed) or as identities only (gone: Peer, Prefix and PathID set),
// and the current version; ok is false when the log does not go back that
// far, or the store holds BMP-monitored peers: then read Routes.
func (s *Store) Changes(since uint64) (changed, gone []validator.Route, version uint64, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if since < s.log.from || since > s.version {
		return nil, nil, s.version, false
	}
	for k := range s.peers {
		if k.router.IsValid() {
			return nil, nil, s.version, false
		}
	}
	type identity struct {
		peer   netip.Addr
		prefix netip.Prefix
		id     uint32
	}
	seen := map[identity]bool{}
	for i := len(s.log.entries) - 1; i >= 0 && s.log.entries[i].version > since; i-- {
		c := s.log.entries[i]
		if id := (identity{c.peer, c.prefix, c.id}); !seen[id] {
			seen[id] = true
			if e, held := s.peers[peerKey{addr: c.peer}]; held {
				if v, held := e.paths.get(c.prefix, c.id); held {
					changed = append(changed, s.attrs.route(c.prefix, c.id, v))
					continue
				}
			}
			gone = append(gone, validator.Route{Prefix: c.prefix, Attributes: &validator.Attributes{Peer: c.peer}, PathID: c.id})
		}
	}
	return changed, gone, s.version, true
}
