package bgp

import (
	"net/netip"
	"strconv"

	"github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
)

// GoBGP reports protocol errors (RFC 7606 treat-as-withdraw, session resets,
// NOTIFICATIONs, the prefix limit) only in its log: neither its API nor its
// watch events carry them. countingLogger counts them on the way to zerolog.
type countingLogger struct {
	log.Logger
	m *metrics
	// disabled is told when GoBGP disabled an address family for a session
	// (RFC 7606 AFI/SAFI disable); nil ignores it.
	disabled func(peer netip.Addr, family string)
}

// countErrors wraps GoBGP's logger so that the protocol errors it reports are
// counted, and AFI/SAFI disables reach disabled.
func (m *metrics) countErrors(l log.Logger, disabled func(peer netip.Addr, family string)) log.Logger {
	return countingLogger{Logger: l, m: m, disabled: disabled}
}

// Warn counts the message, then logs it.
func (l countingLogger) Warn(msg string, f log.Fields) {
	l.m.observe(msg, f)
	if msg == "Capability was disabled" && l.disabled != nil {
		key, _ := f["Key"].(string)
		family, _ := f["Cap"].(string)
		if peer, err := netip.ParseAddr(key); err == nil && family != "" {
			l.disabled(peer, family)
		}
	}
	l.Logger.Warn(msg, f)
}

// updateErrorActions maps GoBGP's log messages about a broken UPDATE to the
// RFC 7606 action taken.
var updateErrorActions = map[string]string{
	"the received Update message was treated as withdraw":       "treat-as-withdraw",
	"Some attributes were discarded":                            "attribute-discard",
	"Capability was disabled":                                   "afi-safi-disable",
	"Session will be reset due to malformed BGP Header":         "session-reset",
	"Session will be reset due to malformed BGP message":        "session-reset",
	"Session will be reset due to malformed BGP update message": "session-reset",
}

func (m *metrics) observe(msg string, f log.Fields) {
	peer, _ := f["Key"].(string)
	if action, ok := updateErrorActions[msg]; ok {
		m.updateErrors.WithLabelValues(peer, action).Inc()
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
// fields: Code and Subcode, or Data holding the *bgp.MessageError it was sent for.
func notificationCode(f log.Fields) (code, sub uint8, ok bool) {
	if e, isErr := f["Data"].(*bgp.MessageError); isErr {
		return e.TypeCode, e.SubTypeCode, true
	}
	code, ok = f["Code"].(uint8)
	sub, ok2 := f["Subcode"].(uint8)
	return code, sub, ok && ok2
}
