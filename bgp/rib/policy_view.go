package rib

import (
	"sync"

	"github.com/routewarden/routewarden/validator"
)

// policyTracker gives the policy view a version of its own, which changes
// when the drops' or the pre-policy paths' version does, and only then (0
// while both are: a store that never saw a BMP view).
type policyTracker struct {
	mu                 sync.Mutex
	drops, sent, total uint64
}

// Policy returns what the monitoring routers showed of their import policy:
// the paths their policy dropped (PolicyDrops) and the pre-policy paths the
// rules do not judge otherwise (PrePolicy), with a version that changes when
// either does, and only then (monitor.PolicySource). A store without BMP
// views returns the zero PolicyView.
func (s *Store) Policy() (validator.PolicyView, uint64) {
	drops, dv := s.PolicyDrops()
	sent, sv := s.PrePolicy()
	t := &s.policy
	t.mu.Lock()
	defer t.mu.Unlock()
	if dv != t.drops || sv != t.sent {
		t.drops, t.sent = dv, sv
		t.total++
	}
	return validator.PolicyView{Drops: drops, PrePolicy: sent}, t.total
}
