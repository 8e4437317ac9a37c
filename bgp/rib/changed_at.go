package bgp

import "time"

// ChangedAt returns when the table last changed (any path of any peer, or a
// peer's state): the time validator/continuous gives a route change it
// finds, to time how long the network took to follow the cluster. Zero
// before the first change.
func (s *Store) ChangedAt() time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.changedAt
}
