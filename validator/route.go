package validator

import (
	"net/netip"
	"strconv"
	"strings"
)

// Route is one path received for a prefix, from one peer.
type Route struct {
	Prefix   netip.Prefix
	NextHop  netip.Addr
	Peer     netip.Addr
	PeerASN  uint32
	RouterID netip.Addr
	ASPath   []uint32
	// Communities in "ASN:VALUE" form; large and extended ones in their usual text form.
	Communities []string
	// Stale is set for paths kept by graceful restart while their peer restarts.
	Stale bool
	// PathID is the ADD-PATH path identifier, 0 without ADD-PATH.
	PathID uint32
}

// Via describes where the route came from, for messages: "via 10.0.0.11 (peer 127.0.0.1)".
func (r Route) Via() string {
	var b strings.Builder
	switch {
	case r.NextHop.IsValid():
		b.WriteString("via next hop " + r.NextHop.String())
		if r.Peer.IsValid() && r.Peer != r.NextHop {
			b.WriteString(" (peer " + r.Peer.String() + ")")
		}
	case r.Peer.IsValid():
		b.WriteString("from peer " + r.Peer.String())
	case r.RouterID.IsValid():
		b.WriteString("from router ID " + r.RouterID.String())
	default:
		b.WriteString("from an unknown origin")
	}
	return b.String()
}

// ASPathString renders the AS path as "65010 65000".
func (r Route) ASPathString() string {
	parts := make([]string, len(r.ASPath))
	for i, as := range r.ASPath {
		parts[i] = strconv.FormatUint(uint64(as), 10)
	}
	return strings.Join(parts, " ")
}
