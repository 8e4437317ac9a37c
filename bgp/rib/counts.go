package rib

import (
	"maps"
	"net/netip"
)

// PathCounts are the paths a peer sent since routewarden started (over all
// its sessions; a monitored peer's as its router reports them) and those left out of the RIB, by reason: the
// difference between what the peer says it sends and what is judged.
type PathCounts struct {
	// Received counts the announced paths of every UPDATE the peer sent.
	Received int64 `json:"received"`
	// Dropped counts those refused, treated as withdrawn or ignored, by reason.
	Dropped map[string]int64 `json:"dropped,omitempty"`
}

// Accepted is how many of the paths received went into the RIB.
func (c PathCounts) Accepted() int64 {
	n := c.Received
	for _, d := range c.Dropped {
		n -= d
	}
	return n
}

func (c PathCounts) clone() PathCounts {
	c.Dropped = maps.Clone(c.Dropped)
	return c
}

// CountPaths records that a direct peer sent received paths, dropped of them
// left out for reason (none when dropped is 0). A peer the store does not
// know (its session has not started) is not recorded: the caller counts it.
func (s *Store) CountPaths(addr netip.Addr, received int, reason string, dropped int) {
	s.CountPeerPaths(Direct(addr), received, reason, dropped)
}

// CountPeerPaths is CountPaths for any peer, a BMP-monitored one too.
func (s *Store) CountPeerPaths(p Peer, received int, reason string, dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.peers[p.key()]
	if e == nil {
		return
	}
	e.info.Paths.Received += int64(received)
	if dropped > 0 {
		if e.info.Paths.Dropped == nil {
			e.info.Paths.Dropped = map[string]int64{}
		}
		e.info.Paths.Dropped[reason] += int64(dropped)
	}
}
