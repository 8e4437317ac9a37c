package rtr

import (
	"net/netip"
	"slices"
	"time"
)

// maxPerClient bounds one address's sessions: a router reconnecting while
// its old session lingers needs two; more only ever come from one client
// taking slots. A client at the limit replaces its own oldest session.
const maxPerClient = 4

// Eviction reasons (routewarden_rtr_sessions_evicted_total{reason}).
const (
	evictPerClient = "perClient" // the client's own oldest session, for its new one
	evictQuiet     = "quiet"     // the session quiet longest, for a newcomer while MaxSessions are open
)

// admitLocked decides whether client gets a session now: it may take the
// place of another (evict, for reason), or be refused (refuse names the
// limit). Sessions from Routers never count against MaxSessions and are
// never evicted for another client, so 30 clients holding a session each
// cannot keep a configured router out. s.mu is held.
func (s *Server) admitLocked(client netip.Addr, now time.Time) (evict *session, reason, refuse string) {
	router := s.isRouter(client)
	var own, shared []*session
	for sess := range s.sessions {
		if sess.evictedFor() != "" {
			continue // closing: its slot is free
		}
		if sess.client == client {
			own = append(own, sess)
		}
		if !sess.router {
			shared = append(shared, sess)
		}
	}
	if len(own) >= maxPerClient {
		oldest := slices.MinFunc(own, func(a, b *session) int { return a.connected.Compare(b.connected) })
		return oldest, evictPerClient, ""
	}
	if router || len(shared) < s.cfg.MaxSessions {
		return nil, "", ""
	}
	// Every slot is taken: the session quiet longest makes room, if it has
	// been quiet for at least PDUTimeout (so a burst of newcomers cannot
	// take turns throwing each other out).
	quiet := slices.MinFunc(shared, func(a, b *session) int { return a.lastActive().Compare(b.lastActive()) })
	if now.Sub(quiet.lastActive()) < s.cfg.PDUTimeout {
		return nil, "", "maxSessions"
	}
	return quiet, evictQuiet, ""
}

// isRouter reports whether client is one of the configured routers.
func (s *Server) isRouter(client netip.Addr) bool {
	return slices.ContainsFunc(s.cfg.Routers, func(p netip.Prefix) bool { return p.Contains(client) })
}
