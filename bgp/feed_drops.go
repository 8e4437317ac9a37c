package bgp

import (
	"net/netip"

	"github.com/routewarden/routewarden/bgp/wire"
)

// Why the route feed leaves a path GoBGP forwarded out of the RIB: the
// reason label of routewarden_bgp_paths_dropped_total and of a peer's
// PathCounts on the API. Nothing is left out without being counted there and
// logged (sampled: the feed's log, ten a minute).
const (
	// dropMalformed: an UPDATE GoBGP took that the feed cannot read at all.
	dropMalformed = "malformed"
	// dropTreatAsWithdraw: GoBGP turned the UPDATE's paths into withdrawals
	// (RFC 7606: an invalid next hop, a bad mandatory attribute).
	dropTreatAsWithdraw = "treat-as-withdraw"
	// dropASLoop: the path's AS path holds the collector's AS (RFC 4271 9.1.2).
	dropASLoop = "as-loop"
	// dropOutsideSession: an UPDATE of a peer whose session the feed does not
	// hold (ended, or its neighbor was removed by a reload).
	dropOutsideSession = "outside-session"
	// dropOtherFamily: MP_REACH/MP_UNREACH of a family other than IPv4 and
	// IPv6 unicast, counted by attribute.
	dropOtherFamily = "other-family"
)

// announcedPaths is how many paths u announces (before any is dropped).
func announcedPaths(u *wire.Update) int { return len(u.Announced) + len(u.MPAnnounced) }

// counted records an UPDATE's paths from peer: received of them, dropped
// left out for reason (why, when known, says what was wrong), on the
// peer's counts, the counters and, sampled, the log.
func (f *routeFeed) counted(peer netip.Addr, received int, reason string, dropped int, why error) {
	m := f.c.metrics
	label := peer.String()
	if received > 0 {
		m.pathsReceived.WithLabelValues(label).Add(float64(received))
	}
	if reason != dropOutsideSession {
		f.c.store.CountPaths(peer, received, reason, dropped)
	}
	if dropped == 0 {
		return
	}
	m.pathsDropped.WithLabelValues(label, reason).Add(float64(dropped))
	ev := f.sampledLog.Warn().Str("peer", label).Str("reason", reason).Int("paths", dropped)
	if why != nil {
		ev = ev.Err(why)
	}
	ev.Msg("paths GoBGP forwarded were left out of the RIB")
}
