// Package roa derives the ROAs (route origin authorizations, RFC 6482) that
// say what the cluster may announce: each node's allocated pod CIDRs with its
// AS, each announced LoadBalancer IP with its announcing nodes' AS, and an
// AS0 ROA (RFC 6483, RFC 7607) over every pool, so that anything unallocated
// inside a pool validates Invalid at a router doing origin validation. A pool
// holding an allocation whose AS is unknown gets no AS0 ROA (it fails open
// rather than reject a legitimate route). It is pure: the rtr package serves
// the set, `routewarden roas` prints it.
package roa

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// ROA is one validated ROA payload: prefix, max length and origin AS.
type ROA struct {
	Prefix netip.Prefix `json:"prefix"`
	MaxLen uint8        `json:"maxLength"`
	ASN    uint32       `json:"asn"`
	// Why says what the ROA comes from (not part of its identity).
	Why string `json:"source,omitempty"`
}

// Key is the ROA's identity: prefix, max length and AS.
type Key struct {
	Prefix netip.Prefix
	MaxLen uint8
	ASN    uint32
}

// Key returns the ROA's identity.
func (r ROA) Key() Key { return Key{r.Prefix, r.MaxLen, r.ASN} }

// Compare orders ROAs by address, length, max length, then AS.
func Compare(a, b ROA) int {
	return cmp.Or(a.Prefix.Addr().Compare(b.Prefix.Addr()), cmp.Compare(a.Prefix.Bits(), b.Prefix.Bits()),
		cmp.Compare(a.MaxLen, b.MaxLen), cmp.Compare(a.ASN, b.ASN))
}

// Options complete what the cluster says.
type Options struct {
	// AllowedRanges are configured ranges that get an AS0 ROA like the pools
	// (cluster.allowedRanges).
	AllowedRanges []netip.Prefix
	// DefaultASN is the AS of nodes Cilium's BGP objects give none (rtr.nodeASN); 0: none.
	DefaultASN uint32
}

// Set is the derived ROAs, sorted and without duplicates, with what could
// not be derived.
type Set struct {
	ROAs []ROA `json:"roas"`
	// Unresolved says which allocations got no ROA (a node without an AS).
	Unresolved []string `json:"unresolved,omitempty"`
	// OpenPools are the pools left without their AS0 ROA because an
	// unresolved allocation lies inside: they fail open (NotFound) instead of
	// making that allocation Invalid.
	OpenPools []netip.Prefix `json:"openPools,omitempty"`
}

// Derive computes the ROA set of a cluster.
func Derive(c *validator.Cluster, opts Options) Set {
	d := &deriver{c: c, opts: opts, seen: map[Key]bool{}}
	snap := validator.NewSnapshot(c, nil, validator.PolicyView{}, validator.Options{})
	for _, name := range snap.NodeNames() {
		v := snap.NodeView(name)
		if !v.Current() {
			continue // a CiliumNode whose Node is gone: its CIDRs are no longer routed
		}
		asns := d.asnsOf(name)
		for _, a := range v.Allocated {
			if len(asns) == 0 {
				d.unresolve(a.Prefix.Masked(), fmt.Sprintf("%s of node %s: the node has no local ASN", a.Prefix, name))
			}
			for _, as := range asns {
				d.add(a.Prefix.Masked(), uint8(a.Prefix.Bits()), as, "node "+name+": "+a.Source)
			}
		}
	}
	d.services(snap)
	pools := [][]netip.Prefix{c.IPAM.PodRanges, c.LBPools, opts.AllowedRanges}
	for i, what := range []string{"pod range", "LoadBalancer pool", "allowed range"} {
		for _, p := range pools[i] {
			if slices.ContainsFunc(d.open, p.Overlaps) {
				d.set.OpenPools = append(d.set.OpenPools, p.Masked())
				continue
			}
			d.add(p.Masked(), uint8(p.Addr().BitLen()), 0, "AS0: "+what)
		}
	}
	slices.SortFunc(d.set.OpenPools, netip.Prefix.Compare)
	d.set.OpenPools = slices.Compact(d.set.OpenPools)
	slices.SortFunc(d.set.ROAs, Compare)
	slices.Sort(d.set.Unresolved)
	return d.set
}

type deriver struct {
	c    *validator.Cluster
	opts Options
	seen map[Key]bool
	set  Set
	open []netip.Prefix // the unresolved allocations
}

// unresolve records an allocation that gets no ROA: its pool fails open.
func (d *deriver) unresolve(p netip.Prefix, why string) {
	d.open = append(d.open, p)
	d.set.Unresolved = append(d.set.Unresolved, why)
}

func (d *deriver) add(p netip.Prefix, maxLen uint8, asn uint32, why string) {
	r := ROA{Prefix: p, MaxLen: maxLen, ASN: asn, Why: why}
	if d.seen[r.Key()] {
		return
	}
	d.seen[r.Key()] = true
	d.set.ROAs = append(d.set.ROAs, r)
}

// asnsOf returns the node's local ASNs, or the default.
func (d *deriver) asnsOf(node string) []uint32 {
	if asns := d.c.NodeASNs[node]; len(asns) > 0 {
		return asns
	}
	if d.opts.DefaultASN != 0 {
		return []uint32{d.opts.DefaultASN}
	}
	return nil
}

// services adds a host ROA per announced VIP, with the AS of every node that
// may announce it: with externalTrafficPolicy Local the nodes with a ready
// endpoint (Cilium withdraws the VIP from the others), else every node. A
// VIP one of those nodes could announce without an AS is unresolved.
func (d *deriver) services(snap *validator.Snapshot) {
	for i := range d.c.Services {
		svc := &d.c.Services[i]
		if !svc.Announced || len(svc.VIPs) == 0 {
			continue
		}
		var asns []uint32
		var none []string // nodes that may announce it and have no AS
		for _, name := range snap.NodeNames() {
			if v := snap.NodeView(name); v.Current() && (!svc.LocalTraffic() || svc.ReadyOn(name)) {
				if a := d.asnsOf(name); len(a) > 0 {
					asns = append(asns, a...)
				} else {
					none = append(none, name)
				}
			}
		}
		slices.Sort(asns)
		asns = slices.Compact(asns)
		for _, vip := range svc.VIPs {
			p := validator.VIPPrefix(vip.Unmap())
			if len(none) > 0 {
				d.unresolve(p, fmt.Sprintf("%s of Service %s: nodes without a local ASN may announce it (%s)",
					vip.Unmap(), svc.Key(), strings.Join(none, ", ")))
			}
			for _, as := range asns {
				d.add(p, uint8(p.Bits()), as, "Service "+svc.Key())
			}
		}
	}
}

// Diff returns what changes from the sorted set old to the sorted set cur:
// the ROAs withdrawn and those announced, both sorted.
func Diff(old, cur []ROA) (withdrawn, announced []ROA) {
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		c := 0
		switch {
		case i == len(old):
			c = 1
		case j == len(cur):
			c = -1
		default:
			c = Compare(old[i], cur[j])
		}
		switch {
		case c < 0:
			withdrawn, i = append(withdrawn, old[i]), i+1
		case c > 0:
			announced, j = append(announced, cur[j]), j+1
		default:
			i, j = i+1, j+1
		}
	}
	return withdrawn, announced
}
