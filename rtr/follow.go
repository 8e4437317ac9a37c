package rtr

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/routewarden/routewarden/validator/roa"
)

// updateState is how the served set follows the inventory.
type updateState struct {
	version    uint64 // the inventory version last derived
	derived    bool
	frozen     string // why the set is frozen ("" when it follows the inventory)
	held       *Held
	base       []roa.ROA // while held: the set served when the hold began
	unresolved []string
	openPools  []netip.Prefix
}

// Held is a drop withheld because it would take the origin from too many
// prefixes at once: the set served when it began stays served, with the
// inventory's additions.
type Held struct {
	Since time.Time `json:"since"`
	// Withdrawn counts the served prefixes the inventory's set leaves without
	// any origin AS, of the Served prefixes that have one.
	Withdrawn int    `json:"withdrawn"`
	Served    int    `json:"served"`
	Reason    string `json:"reason"`
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
// shrinks it) or the set would leave more than MaxDropShare of the served
// prefixes without an origin (held: its additions are served, its
// withdrawals wait).
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
	s.mu.Lock()
	if !slices.Equal(s.upd.unresolved, set.Unresolved) && len(set.Unresolved) > 0 {
		s.log.Warn().Strs("unresolved", set.Unresolved).Strs("openPools", prefixStrings(set.OpenPools)).
			Msg("RTR: allocations without a known AS get no ROA, and their pools no AS0 ROA (they fail open): " +
				"set rtr.nodeASN or the nodes' localASN")
	}
	s.upd.version, s.upd.derived, s.upd.unresolved, s.upd.openPools = version, true, set.Unresolved, set.OpenPools
	s.metrics.unresolv.Set(float64(len(set.Unresolved)))
	base := cur.roas
	if s.upd.held != nil {
		base = s.upd.base
	}
	publish, held := set.ROAs, false
	lost, served := originLoss(base, set.ROAs)
	if cur.ready && float64(lost) > s.cfg.MaxDropShare*float64(served) {
		if s.upd.held == nil {
			s.upd.held, s.upd.base = &Held{Since: now}, base
			s.log.Warn().Int("withdrawn", lost).Int("served", served).Float64("maxDropShare", s.cfg.MaxDropShare).
				Msg("RTR: holding the withdrawals of a ROA set that would leave more than rtr.maxDropShare of the " +
					"served prefixes without an origin (its additions are served)")
		}
		h := s.upd.held
		h.Withdrawn, h.Served = lost, served
		h.Reason = fmt.Sprintf("the inventory's set would leave %d of the %d served prefixes without an origin AS "+
			"(more than rtr.maxDropShare %g); its additions are served, its withdrawals held", lost, served, s.cfg.MaxDropShare)
		if s.cfg.HoldDrop == 0 || now.Sub(h.Since) < s.cfg.HoldDrop {
			publish, held = union(base, set.ROAs), true
		} else {
			s.log.Warn().Int("withdrawn", lost).Dur("heldFor", now.Sub(h.Since)).Msg("RTR: serving the held withdrawals after rtr.holdDrop")
		}
	}
	if !held {
		s.upd.held, s.upd.base = nil, nil
	}
	s.mu.Unlock()
	s.metrics.held.Set(0)
	if held {
		s.metrics.held.Set(1)
	}
	if s.cache.publish(publish) {
		snap := s.cache.snapshot()
		s.metrics.serial.Set(float64(snap.serial))
		s.metrics.roas.Set(float64(len(snap.roas)))
		urgent := admits(roa.Diff(cur.roas, snap.roas))
		s.log.Info().Uint32("serial", snap.serial).Int("roas", len(snap.roas)).Bool("withdrawalsHeld", held).
			Bool("notifiedAtOnce", urgent).Msg("RTR: serving a new ROA set")
		s.notifyAll(urgent)
	}
}

// admits reports whether a change can let a route in that was kept out: a
// ROA with an origin announced (a new node's CIDR, a VIP, a new AS), or an
// AS0 ROA withdrawn. Such a serial is notified at once, whatever the notify
// interval: the route of a node Cilium has just allocated a CIDR to must not
// wait a minute at a router that rejected it before its ROA came.
func admits(withdrawn, announced []roa.ROA) bool {
	return slices.ContainsFunc(announced, func(r roa.ROA) bool { return r.ASN != 0 }) ||
		slices.ContainsFunc(withdrawn, func(r roa.ROA) bool { return r.ASN == 0 })
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
	Unresolved []string       `json:"unresolved"` // [] when every allocation has its ROA
	OpenPools  []netip.Prefix `json:"openPools"`
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
	st.Frozen, st.Unresolved, st.OpenPools = s.upd.frozen, s.upd.unresolved, s.upd.openPools
	if st.Unresolved == nil {
		st.Unresolved = []string{}
	}
	if st.OpenPools == nil {
		st.OpenPools = []netip.Prefix{}
	}
	if h := s.upd.held; h != nil {
		c := *h
		st.Held = &c
	}
	s.mu.Unlock()
	return st
}

func prefixStrings(ps []netip.Prefix) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}
