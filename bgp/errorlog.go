package bgp

import (
	"log/slog"
	"strconv"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// GoBGP reports protocol errors (RFC 7606 treat-as-withdraw, session resets,
// NOTIFICATIONs, the prefix limit) only in its log: neither its API nor its
// watch events carry them. observe counts them on their way to zerolog
// (gobgpHandler calls it with every message of Info and above).

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
	case "sent notification", "received notification":
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
