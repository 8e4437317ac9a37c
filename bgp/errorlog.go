package bgp

import (
	"log/slog"
	"strconv"
	"sync"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// GoBGP reports protocol errors (RFC 7606 treat-as-withdraw, session resets,
// NOTIFICATIONs, the prefix limit) only in its log: neither its API nor its
// watch events carry them. observe counts them on their way to zerolog
// (gobgplog calls it with every message of Info and above).

// updateErrorActions maps GoBGP's warnings about a broken UPDATE to the
// RFC 7606 action taken. GoBGP v4 turns an AFI/SAFI disable into a session
// reset (fsmHandler.handlingError), so "afi-safi-disable" is no longer seen.
var updateErrorActions = map[string]string{
	"the received Update message was treated as withdraw":       "treat-as-withdraw",
	"Some attributes were discarded":                            "attribute-discard",
	"Session will be reset due to malformed BGP Header":         "session-reset",
	"Session will be reset due to malformed BGP message":        "session-reset",
	"Session will be reset due to malformed BGP update message": "session-reset",
}

func (m *metrics) observe(level slog.Level, msg string, f map[string]slog.Value) {
	peer := f["Key"].String()
	if action, ok := updateErrorActions[msg]; ok {
		if level >= slog.LevelWarn {
			m.updateErrors.WithLabelValues(peer, action).Inc()
		}
		return
	}
	switch msg {
	case "Peer Up", "Peer Down":
		m.sent.session(peer, msg == "Peer Up")
	case "sent notification", "received notification":
		if msg == "sent notification" && !m.sent.first(peer) {
			return
		}
		dir := "sent"
		if msg == "received notification" {
			dir = "received"
		}
		code, sub, ok := notificationCode(f)
		if !ok {
			return
		}
		m.notifications.WithLabelValues(peer, dir, strconv.Itoa(int(code)), strconv.Itoa(int(sub))).Inc()
		// GoBGP logs "prefix limit reached" for every UPDATE still queued when
		// the limit is passed; the Cease it sends is the one cut-off.
		if dir == "sent" && code == bgp.BGP_ERROR_CEASE && sub == bgp.BGP_ERROR_SUB_MAXIMUM_NUMBER_OF_PREFIXES_REACHED {
			m.prefixLimit.WithLabelValues(peer).Inc()
		}
	}
}

// notificationCode reads a NOTIFICATION's code and subcode from GoBGP's log
// fields (Code and Subcode, logged as ints).
func notificationCode(f map[string]slog.Value) (code, sub uint8, ok bool) {
	c, okc := f["Code"]
	s, oks := f["Subcode"]
	if !okc || !oks || c.Kind() != slog.KindInt64 || s.Kind() != slog.KindInt64 {
		return 0, 0, false
	}
	return uint8(c.Int64()), uint8(s.Int64()), true
}

// sentOnce tells the first NOTIFICATION sent in a session from a repeat.
// GoBGP v4 logs "sent notification" for every prefix-limit cut-off it is
// asked for, and it is asked once for every UPDATE it read past the limit:
// the first closes the connection, the others are written to the closed one
// (fsmHandler.established, adminStatePfxCt). A session ends with the first
// NOTIFICATION it sends; its FSM logs Peer Up, the NOTIFICATIONs and Peer
// Down in that order, on one goroutine.
type sentOnce struct {
	mu   sync.Mutex
	open map[string]bool // peer -> in an established session; true until it sent a NOTIFICATION
}

func (s *sentOnce) session(peer string, up bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open == nil {
		s.open = map[string]bool{}
	}
	if up {
		s.open[peer] = true
	} else {
		delete(s.open, peer)
	}
}

// first reports whether a NOTIFICATION sent to peer now is the first of its
// session (or sent outside one, while the session is being set up).
func (s *sentOnce) first(peer string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	open, in := s.open[peer]
	if in {
		s.open[peer] = false
	}
	return !in || open
}
