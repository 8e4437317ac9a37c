// Package convergence measures how long the network takes to follow the
// cluster: from each cluster change that should move a route (a node deleted,
// a CIDR allocated, a Service given its VIP or its first ready endpoint) to
// the route change the collector saw. It is pure: the cluster's and the
// routes' states come in with their times, and it returns completed changes,
// pending ones and slow-convergence findings. The stateful part (timers, the
// clock, metrics) is monitor/'s.
package convergence

import (
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator"
)

// Kind is what a route carries.
type Kind string

// The kinds of routes whose convergence is measured.
const (
	PodCIDR Kind = "pod-cidr"
	VIP     Kind = "vip"
)

// Direction is whether a route should appear or go.
type Direction string

// The directions of a change.
const (
	Announce Direction = "announce"
	Withdraw Direction = "withdraw"
)

// Key is one route of one node: the unit whose convergence is measured (a
// VIP announced by three nodes is three keys, one ECMP path each). A key of
// no Node is a route any node may carry (a VIP while Cilium's BGP
// configuration names no nodes).
type Key struct {
	Kind   Kind         `json:"kind"`
	Prefix netip.Prefix `json:"prefix"`
	Node   string       `json:"node"`
}

// Expected is what the cluster asks of the routes: Announce holds the keys
// that should be announced now, Keep those that may stay (Announce and the
// keys of nodes that are NotReady, which Cilium keeps announcing: it has no
// setting that withdraws on NotReady or cordon). A key entering Announce is
// an announcement to wait for, a key leaving Keep a withdrawal.
type Expected struct {
	Announce map[Key]bool
	Keep     map[Key]bool
}

// Expect derives the expected routes from the cluster: the pod CIDRs of its
// nodes that run BGP (by IPAM mode; Cluster.BGPSelects) and the VIPs of the Services Cilium announces, by the
// nodes that run BGP (those Cilium's BGP configuration gives an ASN, or every
// node when it gives none), and with externalTrafficPolicy Local only by the
// nodes with a ready endpoint. Only nodes inScope are expected to announce
// (a collector of one rack sees only that rack's nodes; nil: every node).
func Expect(c *validator.Cluster, inScope func(*validator.Node) bool) Expected {
	e := Expected{Announce: map[Key]bool{}, Keep: map[Key]bool{}}
	add := func(k Key, n *validator.Node) {
		if inScope != nil && !inScope(n) {
			return
		}
		ready := n.Ready
		e.Keep[k] = true
		if ready {
			e.Announce[k] = true
		}
	}
	ciliumNodes := make(map[string]*validator.CiliumNode, len(c.CiliumNodes))
	for i := range c.CiliumNodes {
		ciliumNodes[c.CiliumNodes[i].Name] = &c.CiliumNodes[i]
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if !c.BGPSelects(n.Name) {
			continue // announces nothing by design: never a change to wait for
		}
		for _, p := range podCIDRs(c.IPAM.Mode, n, ciliumNodes[n.Name]) {
			add(Key{Kind: PodCIDR, Prefix: p.Masked(), Node: n.Name}, n)
		}
	}
	if !c.ServicesKnown {
		return e
	}
	announcers := validator.NewAnnouncerIndex(c)
	for _, svc := range c.Services {
		if !svc.Announced {
			continue
		}
		nodes := announcers.Expected(&svc)
		for _, a := range svc.VIPs {
			if len(c.NodeASNs) == 0 {
				// Which nodes run BGP is unknown: a VIP is announced once any
				// node announces it (Node ""), so a node that does not run BGP
				// never makes a change look slow.
				e.addAny(Key{Kind: VIP, Prefix: validator.VIPPrefix(a)}, nodes, inScope)
				continue
			}
			for _, n := range nodes {
				add(Key{Kind: VIP, Prefix: validator.VIPPrefix(a), Node: n.Name}, n)
			}
		}
	}
	return e
}

// addAny expects k (a route of no node in particular) while any of nodes
// in scope may announce it, and announced while any of them is Ready.
func (e Expected) addAny(k Key, nodes []*validator.Node, inScope func(*validator.Node) bool) {
	for _, n := range nodes {
		if inScope != nil && !inScope(n) {
			continue
		}
		e.Keep[k] = true
		if n.Ready {
			e.Announce[k] = true
		}
	}
}

// podCIDRs returns the node's pod CIDRs Cilium announces in IPAM mode m.
func podCIDRs(m validator.IPAMMode, n *validator.Node, cn *validator.CiliumNode) []netip.Prefix {
	switch m {
	case validator.IPAMKubernetes:
		return n.PodCIDRs
	case validator.IPAMClusterPool:
		if cn != nil {
			return cn.PodCIDRs
		}
	case validator.IPAMMultiPool:
		if cn != nil {
			var out []netip.Prefix
			for _, p := range cn.Pools {
				out = append(out, p.CIDRs...)
			}
			return out
		}
	}
	return nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[Key]bool) []Key {
	out := make([]Key, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, compareKeys)
	return out
}

func compareKeys(a, b Key) int {
	if a.Kind != b.Kind {
		if a.Kind < b.Kind {
			return -1
		}
		return 1
	}
	if c := a.Prefix.Addr().Compare(b.Prefix.Addr()); c != 0 {
		return c
	}
	if a.Prefix.Bits() != b.Prefix.Bits() {
		return a.Prefix.Bits() - b.Prefix.Bits()
	}
	switch {
	case a.Node < b.Node:
		return -1
	case a.Node > b.Node:
		return 1
	}
	return 0
}
