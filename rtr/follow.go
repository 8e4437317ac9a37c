package rtr

import (
	"context"
	"fmt"
	"time"

	"github.com/routewarden/routewarden/validator/roa"
)

// updateState is how the served set follows the inventory.
type updateState struct {
	version  uint64 // the inventory version last derived
	derived  bool
	frozen   string // why the set is frozen ("" when it follows the inventory)
	held     *Held
	unsolved []string
}

// Held is a derived set withheld because it would drop too many ROAs at once.
type Held struct {
	Since     time.Time `json:"since"`
	Withdrawn int       `json:"withdrawn"`
	Served    int       `json:"served"`
	Reason    string    `json:"reason"`
}

// follow derives the set whenever the inventory changes (checked every
// Poll, and at once when poked) until ctx ends.
func (s *Server) follow(ctx context.Context) {
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		s.update(time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.poke:
		}
	}
}

// update derives the set from the inventory and publishes it, unless the
// inventory cannot be trusted (the set is frozen: a silent cache never
// shrinks it) or the set would drop more than MaxDropShare (held).
func (s *Server) update(now time.Time) {
	st := s.src.InventoryStatus()
	if !st.Available {
		s.setFrozen("the cluster inventory is unavailable: " + st.Reason)
		return
	}
	c, version, err := s.src.Cluster(now)
	if err != nil {
		s.setFrozen(fmt.Sprintf("the cluster cannot be read: %v", err))
		return
	}
	s.setFrozen("")
	s.mu.Lock()
	// Nothing new, unless a held set's rtr.holdDrop has run out.
	h := s.upd.held
	same := s.upd.derived && s.upd.version == version && (h == nil || s.cfg.HoldDrop == 0 || now.Sub(h.Since) < s.cfg.HoldDrop)
	s.mu.Unlock()
	if same {
		return
	}
	set := roa.Derive(c, s.cfg.ROA)
	cur := s.cache.snapshot()
	withdrawn, _ := roa.Diff(cur.roas, set.ROAs)
	s.mu.Lock()
	s.upd.version, s.upd.derived, s.upd.unsolved = version, true, set.Unresolved
	if cur.ready && len(cur.roas) > 0 && float64(len(withdrawn)) > s.cfg.MaxDropShare*float64(len(cur.roas)) {
		if s.upd.held == nil {
			s.upd.held = &Held{Since: now}
			s.log.Warn().Int("withdrawn", len(withdrawn)).Int("served", len(cur.roas)).Float64("maxDropShare", s.cfg.MaxDropShare).
				Msg("RTR: holding a ROA set that would withdraw more than rtr.maxDropShare of the served ROAs at once")
		}
		h := s.upd.held
		h.Withdrawn, h.Served = len(withdrawn), len(cur.roas)
		h.Reason = fmt.Sprintf("the inventory's set would withdraw %d of the %d served ROAs (more than rtr.maxDropShare %g)",
			len(withdrawn), len(cur.roas), s.cfg.MaxDropShare)
		if s.cfg.HoldDrop == 0 || now.Sub(h.Since) < s.cfg.HoldDrop {
			s.mu.Unlock()
			s.metrics.held.Set(1)
			return
		}
		s.log.Warn().Int("withdrawn", len(withdrawn)).Dur("heldFor", now.Sub(h.Since)).Msg("RTR: serving the held ROA set after rtr.holdDrop")
	}
	s.upd.held = nil
	s.mu.Unlock()
	s.metrics.held.Set(0)
	if s.cache.publish(set.ROAs) {
		snap := s.cache.snapshot()
		s.metrics.serial.Set(float64(snap.serial))
		s.metrics.roas.Set(float64(len(snap.roas)))
		s.log.Info().Uint32("serial", snap.serial).Int("roas", len(snap.roas)).Int("withdrawn", len(withdrawn)).
			Msg("RTR: serving a new ROA set")
		s.notifyAll()
	}
}

func (s *Server) setFrozen(why string) {
	s.mu.Lock()
	changed := s.upd.frozen != why
	s.upd.frozen = why
	s.mu.Unlock()
	if !changed {
		return
	}
	if why != "" {
		s.metrics.frozen.Set(1)
		s.log.Warn().Str("reason", why).Msg("RTR: the ROA set is frozen (served as it is, never shrunk from a silent cache)")
	} else {
		s.metrics.frozen.Set(0)
		s.log.Info().Msg("RTR: the ROA set follows the inventory again")
	}
}

// Status is the server's state for the API and the status page.
type Status struct {
	Listen     string         `json:"listen"`
	SessionID  uint16         `json:"sessionId"`
	Serial     uint32         `json:"serial"`
	Ready      bool           `json:"ready"`
	Count      int            `json:"count"`
	Frozen     string         `json:"frozen,omitempty"`
	Held       *Held          `json:"held,omitempty"`
	Unresolved []string       `json:"unresolved,omitempty"`
	Clients    []ClientStatus `json:"clients"`
	ROAs       []roa.ROA      `json:"roas"`
}

// Status returns the served set, its serial and the connected routers.
func (s *Server) Status() Status {
	snap := s.cache.snapshot()
	st := Status{Listen: s.Addr(), SessionID: snap.session, Serial: snap.serial, Ready: snap.ready,
		Count: len(snap.roas), ROAs: snap.roas, Clients: s.Clients()}
	if st.ROAs == nil {
		st.ROAs = []roa.ROA{}
	}
	s.mu.Lock()
	st.Frozen, st.Unresolved = s.upd.frozen, s.upd.unsolved
	if h := s.upd.held; h != nil {
		c := *h
		st.Held = &c
	}
	s.mu.Unlock()
	return st
}
