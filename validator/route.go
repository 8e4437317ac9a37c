package validator

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Route is one path received for a prefix, from one peer. Routes with the
// same attributes share one set (48 bytes a route, where a copy of the
// attributes in each took 168: a node's routes mostly carry the same).
type Route struct {
	Prefix netip.Prefix
	// Attributes are shared with other routes: never change them through a
	// route, give it its own copy first (Unshare). Nil reads as no attributes
	// in the validator; elsewhere set them.
	*Attributes
	// Stale is set for paths kept by graceful restart while their peer restarts.
	Stale bool
	// PathID is the ADD-PATH path identifier, 0 without ADD-PATH.
	PathID uint32
}

// Attributes are what a route carries besides its prefix: where it came
// from and its path attributes.
type Attributes struct {
	NextHop  netip.Addr
	Peer     netip.Addr
	PeerASN  uint32
	RouterID netip.Addr
	// Router is the BMP-monitoring router (the ToR) a monitored peer's path
	// is seen through, by its BMP session's source address. Unset for a
	// path of a direct session.
	Router netip.Addr
	// Local is the address of the session's end the path was sent to: the
	// address the node peers with (Cilium's peerAddress), from the BGP Peer
	// Up's Local Address (the collector's for a direct session, the
	// monitoring router's for a monitored one). Unset when unknown.
	Local  netip.Addr
	ASPath []uint32
	// Communities are the standard communities (RFC 1997), "ASN:VALUE".
	Communities []string
	// LargeCommunities are the large communities (RFC 8092), "GLOBAL:LOCAL1:LOCAL2".
	LargeCommunities []string
	// LocalPref is LOCAL_PREF (iBGP paths carry it), when HasLocalPref.
	LocalPref    uint32
	HasLocalPref bool
	// PostPolicy marks a path as the monitoring router holds it after its
	// inbound policy (BMP post-policy Adj-RIB-In, Loc-RIB): its communities
	// and local preference may be the router's policy's, not the sender's.
	PostPolicy bool
	// Relayed marks a path received over a session the configuration
	// declares a ToR's (role tor: routewarden behind the ToR): the ToR's
	// policy may have set or stripped its communities and local preference.
	Relayed bool
	// Unseen names the path attributes the route's source cannot show (a
	// dump format that carries no communities, say): a rule never judges
	// them. Zero, a BGP session's or BMP's path, shows them all.
	Unseen AttrSet
}

// AttrSet is a set of path attributes, for what a route source shows.
type AttrSet uint8

// The path attributes a source may not show.
const (
	UnseenCommunities AttrSet = 1 << iota
	UnseenLargeCommunities
	UnseenLocalPref
	UnseenASPath
	UnseenNextHop
)

// Has reports whether every attribute of x is in s.
func (s AttrSet) Has(x AttrSet) bool { return s&x == x }

// noAttributes stands for a route's missing attributes; nothing changes it.
var noAttributes Attributes

// Attrs returns the route's attributes, never nil.
func (r Route) Attrs() *Attributes {
	if r.Attributes == nil {
		return &noAttributes
	}
	return r.Attributes
}

// Unshare gives the route its own copy of its attributes and returns it, to
// change them without changing the routes that share them.
func (r *Route) Unshare() *Attributes {
	a := *r.Attrs()
	a.ASPath, a.Communities = slices.Clone(a.ASPath), slices.Clone(a.Communities)
	a.LargeCommunities = slices.Clone(a.LargeCommunities)
	r.Attributes = &a
	return &a
}

// sameAttributes reports whether a and b hold the same attributes.
func sameAttributes(a, b *Attributes) bool {
	return a == b || a.NextHop == b.NextHop && a.Peer == b.Peer && a.PeerASN == b.PeerASN &&
		a.RouterID == b.RouterID && a.Router == b.Router && a.Local == b.Local && slices.Equal(a.ASPath, b.ASPath) && slices.Equal(a.Communities, b.Communities) &&
		slices.Equal(a.LargeCommunities, b.LargeCommunities) && a.LocalPref == b.LocalPref &&
		a.HasLocalPref == b.HasLocalPref && a.PostPolicy == b.PostPolicy && a.Relayed == b.Relayed &&
		a.Unseen == b.Unseen
}

// Via describes where the route came from, for messages: "via 10.0.0.11 (peer 127.0.0.1)".
func (r Route) Via() string {
	a := r.Attrs()
	var b strings.Builder
	switch {
	case a.NextHop.IsValid():
		b.WriteString("via next hop " + a.NextHop.String())
		if a.Peer.IsValid() && a.Peer != a.NextHop {
			b.WriteString(" (peer " + a.Peer.String() + ")")
		}
	case a.Peer.IsValid():
		b.WriteString("from peer " + a.Peer.String())
	case a.RouterID.IsValid():
		b.WriteString("from router ID " + a.RouterID.String())
	default:
		b.WriteString("from an unknown origin")
	}
	return b.String()
}

// String renders the route for messages and test output (its attributes are
// behind a pointer, which %v would print as an address):
// "10.244.1.0/24 #2 via next hop 10.0.0.11 (peer 127.0.0.1), stale".
func (r Route) String() string {
	s := r.Prefix.String()
	if r.PathID != 0 {
		s += " #" + strconv.FormatUint(uint64(r.PathID), 10)
	}
	s += " " + r.Via()
	if p := r.ASPathString(); p != "" {
		s += ", AS path " + p
	}
	if r.Stale {
		s += ", stale"
	}
	return s
}

// ASPathString renders the AS path as "65010 65000".
func (r Route) ASPathString() string {
	path := r.Attrs().ASPath
	parts := make([]string, len(path))
	for i, as := range path {
		parts[i] = strconv.FormatUint(uint64(as), 10)
	}
	return strings.Join(parts, " ")
}

// ShareAttributes makes routes with equal attributes share one set where
// they follow each other within a peer's routes, as in a route dump: a reader
// of a large dump then holds a few sets instead of one a route.
func ShareAttributes(routes []Route) {
	last := map[netip.Addr]*Attributes{}
	for i := range routes {
		a := routes[i].Attributes
		if a == nil {
			continue
		}
		if prev := last[a.Peer]; prev != nil && sameAttributes(prev, a) {
			routes[i].Attributes = prev
			continue
		}
		last[a.Peer] = a
	}
}
