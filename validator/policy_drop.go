package validator

import (
	"cmp"
	"net/netip"
	"slices"
	"time"
)

// PolicyDrop is a path a ToR received from a peer and whose policy did not
// accept it: present in the ToR's pre-policy Adj-RIB-In of that peer, absent
// from its post-policy Adj-RIB-In (or, where the ToR sends no post-policy
// view, from its Loc-RIB). The BGP side finds them (BMP pre- against
// post-policy; check: the node-side dumps against the ToR's dump); the rule
// filtered-at-tor judges whether Cilium should have got it through.
type PolicyDrop struct {
	// Router names the ToR: the BMP session's source address, or the dump.
	Router string
	// Route is the path as received (pre-policy): prefix, peer, next hop, AS path.
	Route Route
	// Since is when the path was first seen dropped; zero when unknown (a dump).
	Since time.Time
}

// PolicyDrops compares what nodes sent (pre-policy, e.g. the node-side
// dumps) with what the ToR router kept (its post-policy table, e.g. FRR's
// `show bgp ipv4 unicast json`): every pre-policy path whose prefix the ToR
// holds from none of the path's announcers (by peer or next hop) is dropped.
// A path of a node-side dump that names no peer (the node's advertised
// routes: FRR's advertised-routes, gobgp adj-out) was received by the ToR from
// the address the node sends from, its next hop (eBGP next-hop-self, as
// Cilium sends): the drop names that peer, never an unset one.
// The result is sorted by prefix, then peer.
func PolicyDrops(router string, pre, post []Route) []PolicyDrop {
	type held struct {
		prefix netip.Prefix
		addr   netip.Addr
	}
	kept := map[held]bool{}
	for _, r := range post {
		a := r.Attrs()
		kept[held{r.Prefix, a.Peer}], kept[held{r.Prefix, a.NextHop}] = true, true
	}
	var out []PolicyDrop
	for _, r := range pre {
		a := r.Attrs()
		if !known(a.Peer) && !known(a.NextHop) {
			continue // a path the node originates, seen from the node: nothing to compare by
		}
		if (a.Peer.IsValid() && kept[held{r.Prefix, a.Peer}]) || (a.NextHop.IsValid() && kept[held{r.Prefix, a.NextHop}]) {
			continue
		}
		if !known(a.Peer) {
			r.Unshare().Peer = a.NextHop
		}
		out = append(out, PolicyDrop{Router: router, Route: r})
	}
	SortPolicyDrops(out)
	return out
}

func known(a netip.Addr) bool { return a.IsValid() && !a.IsUnspecified() }

// SortPolicyDrops sorts drops by prefix, router, then peer.
func SortPolicyDrops(ds []PolicyDrop) {
	slices.SortFunc(ds, func(a, b PolicyDrop) int {
		if c := comparePrefix(a.Route.Prefix, b.Route.Prefix); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Router, b.Router); c != 0 {
			return c
		}
		return a.Route.Attrs().Peer.Compare(b.Route.Attrs().Peer)
	})
}

// MarkPostPolicy marks routes as a router's table after its policy (check's
// --tor-routes), as the RIB marks a BMP post-policy view: attribute-mismatch
// then shows, and does not alert, communities and local preference the
// router's own policy changed. Attribute sets are never changed in place: a
// set shared by several routes gets one marked copy, which they then share.
func MarkPostPolicy(routes []Route) {
	marked := map[*Attributes]*Attributes{}
	for i := range routes {
		a := routes[i].Attributes
		if a == nil || a.PostPolicy {
			continue
		}
		m := marked[a]
		if m == nil {
			c := *a
			c.PostPolicy = true
			m = &c
			marked[a] = m
		}
		routes[i].Attributes = m
	}
}
