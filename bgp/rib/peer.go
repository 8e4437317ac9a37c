package rib

import (
	"net/netip"
	"time"

	"github.com/routewarden/routewarden/bgp/wire"
	"github.com/routewarden/routewarden/validator"
)

// Peer is where paths come from, their origin: a direct BGP neighbor of the
// collector (Router unset; Direct), or a peer monitored over BMP, named by
// the monitoring router (the BMP session's source address) and the BMP
// per-peer header's peer type, distinguisher and address. Two ToRs
// monitoring sessions with the same node are two monitored peers.
type Peer struct {
	Router        netip.Addr
	Type          uint8
	Distinguisher uint64
	Address       netip.Addr
	// View is the RIB of a monitored peer's paths ("pre-policy",
	// "post-policy", "loc-rib"; empty reads as pre-policy): each view of a
	// peer is held apart.
	View string
	// Relayed marks a direct peer the configuration declares a ToR relaying
	// the nodes' paths (role tor): its paths carry validator.Attributes.Relayed.
	// It is not part of the peer's identity.
	Relayed bool
	// Local is the session's local address (BGP Peer Up's Local Address):
	// where the peer sent its paths, validator.Attributes.Local. Not part of
	// the peer's identity either.
	Local netip.Addr
}

// Direct is the origin of a direct BGP neighbor's paths.
func Direct(addr netip.Addr) Peer { return Peer{Address: addr} }

// Monitored reports whether p is a peer monitored over BMP.
func (p Peer) Monitored() bool { return p.Router.IsValid() }

func (p Peer) key() peerKey {
	k := peerKey{router: p.Router, typ: p.Type, dist: p.Distinguisher, addr: p.Address}
	if p.View == ViewPostPolicy {
		k.view = keyPostPolicy
	}
	return k
}

// peerKey identifies a peer in the store: a direct BGP neighbor by its
// address (router unset), a monitored peer by its Peer and view.
type peerKey struct {
	router netip.Addr
	typ    uint8
	dist   uint64
	addr   netip.Addr
	view   uint8 // keyPrePolicy or keyPostPolicy
}

type pathKey struct {
	prefix netip.Prefix
	id     uint32
}

// NLRI is one announced or withdrawn prefix with its ADD-PATH ID.
type NLRI = wire.NLRI

// Paths is what one UPDATE brought of one address family (of both, for an
// MP_REACH of one beside an MP_UNREACH of the other): the announced paths
// share Attrs. The decoder reuses its slices: whoever keeps Paths copies them.
type Paths struct {
	Attrs                validator.Attributes
	Announced, Withdrawn []NLRI
}

// PeerInfo is what the RIB knows about one peer, for the API and metrics.
type PeerInfo struct {
	Address  netip.Addr `json:"address"`
	ASN      uint32     `json:"asn"`
	RouterID string     `json:"routerId"`
	State    string     `json:"state"`
	Dynamic  bool       `json:"dynamic"`
	Since    time.Time  `json:"since"`
	Routes   int        `json:"routes"`
	EndOfRIB []string   `json:"endOfRib"`
	// Families are the address families the session negotiated (direct
	// peers): the peer's table is complete once each has sent End-of-RIB.
	Families    []string      `json:"families,omitempty"`
	RestartTime time.Duration `json:"restartTime"`
	// StaleUntil is set while a restarting peer's paths are kept (graceful restart).
	StaleUntil time.Time `json:"staleUntil,omitempty"`
	// BMP is set for a peer monitored over BMP (see MonitoredPeers).
	BMP *BMPInfo `json:"bmp,omitempty"`
	// Paths counts what a direct peer sent and what was left out (counts.go).
	Paths PathCounts `json:"paths"`
}

// BMPInfo is what BMP told about a monitored peer.
type BMPInfo struct {
	// Router is the monitoring router's address; SysName its Initiation sysName
	// (a Cilium node names itself there).
	Router  netip.Addr `json:"router"`
	SysName string     `json:"sysName,omitempty"`
	// View is the RIB whose routes are held: "pre-policy", "post-policy" (Adj-RIB-In) or "loc-rib".
	View string `json:"view,omitempty"`
	// Judged says the rules judge this view's paths: a pre-policy view is
	// not judged while the router sends the peer's post-policy view too (the
	// rule filtered-at-tor compares the two).
	Judged bool `json:"judged"`
	// Updated is when the view last changed (a Route Monitoring message).
	Updated time.Time `json:"updated,omitzero"`
}

// isV6 reports whether the first path is IPv6.
func (b *Paths) isV6() bool {
	for _, ns := range [][]NLRI{b.Announced, b.Withdrawn} {
		if len(ns) > 0 {
			return ns[0].Prefix.Addr().Is6()
		}
	}
	return false
}

// mixed reports whether b has paths of both address families: an
// UPDATE's Paths are of one, but for an MP_REACH of one family beside an
// MP_UNREACH of the other.
func (b *Paths) mixed() bool {
	v6 := b.isV6()
	for _, ns := range [][]NLRI{b.Announced, b.Withdrawn} {
		for _, n := range ns {
			if n.Prefix.Addr().Is6() != v6 {
				return true
			}
		}
	}
	return false
}

// byFamily splits mixed Paths by address family.
func (b *Paths) byFamily() []*Paths {
	var parts [2]*Paths
	add := func(n NLRI, withdrawn bool) {
		i := b2i(n.Prefix.Addr().Is6())
		if parts[i] == nil {
			parts[i] = &Paths{Attrs: b.Attrs}
		}
		if withdrawn {
			parts[i].Withdrawn = append(parts[i].Withdrawn, n)
		} else {
			parts[i].Announced = append(parts[i].Announced, n)
		}
	}
	for _, n := range b.Withdrawn {
		add(n, true)
	}
	for _, n := range b.Announced {
		add(n, false)
	}
	return []*Paths{parts[0], parts[1]}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
