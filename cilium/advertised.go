package cilium

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator"
)

// advert is one entry of a CiliumBGPAdvertisement's advertisements[].
type advert struct {
	name  string // of the CiliumBGPAdvertisement
	typ   string // advertisementType
	sel   *LabelSelector
	lbIP  bool // a Service advertisement of LoadBalancerIP addresses
	attrs attrValues
	bad   bool // its attributes cannot be read: the prefixes it selects go unjudged
}

// advertisedAttributes derives what the advertisements tell each node to
// attach to its pod CIDRs and Service VIPs: nil when no advertisement sets
// attributes. The advertisements a peer of a node is sent are those its
// CiliumBGPPeerConfig's families select (nodePeers); without any
// CiliumBGPPeerConfig among the objects, every advertisement counts for every
// node, as for the VIP announcers. Overlapping advertisements sent to one
// peer are merged: the union of their communities.
// An advertisement whose attributes cannot be read is an error, unless bad
// is set (the live inventory): then it is reported to bad and the prefixes it
// selects are left unjudged.
func (o *Objects) advertisedAttributes(bad func(error)) (*validator.AdvertisedAttributes, error) {
	var ads []advert
	var errs []error
	set := false
	for _, s := range o.BGPAdverts {
		for i, ad := range s.Object.Spec.Advertisements {
			v, err := ad.Attributes.values()
			if err != nil {
				pos := s.Pos
				if l := s.Lines.Line(fmt.Sprintf("spec.advertisements[%d].attributes", i)); l > 0 {
					pos.Line = l
				}
				errs = append(errs, fmt.Errorf("%s: CiliumBGPAdvertisement %s: advertisements[%d].attributes: %w", pos,
					s.Object.Metadata.Name, i, err))
			}
			set = set || v.set()
			a := advert{name: s.Object.Metadata.Name, typ: ad.AdvertisementType, attrs: v, bad: err != nil}
			if ad.Selector != nil {
				a.sel = ad.Selector
			}
			a.lbIP = ad.LoadBalancerIP()
			ads = append(ads, a)
		}
	}
	if bad != nil {
		for _, err := range errs {
			bad(err)
		}
		errs = nil
	}
	if len(errs) > 0 || !set {
		return nil, errors.Join(errs...)
	}
	out := &validator.AdvertisedAttributes{NodeGroup: map[string]int{}}
	byKey := map[string]int{}             // a group: the nodes' peers, with their addresses
	intents := map[string]*groupIntents{} // what peers told alike get, whatever their addresses
	for _, n := range o.Nodes {
		peers := o.nodePeers(n.Object.Metadata.Labels)
		if len(peers) == 0 {
			continue
		}
		key := peersKey(peers, true)
		g, ok := byKey[key]
		if !ok {
			sel := peersKey(peers, false)
			in := intents[sel]
			if in == nil {
				in = o.advertisedGroup(ads, peers)
				intents[sel] = in
			}
			group := in.agreed // shares its intents with the groups of racks told alike
			if in.per != nil {
				group.Peers = peerGroups(peers, in.per)
			}
			g = len(out.Groups)
			byKey[key] = g
			out.Groups = append(out.Groups, group)
		}
		out.NodeGroup[n.Object.Metadata.Name] = g
	}
	return out, nil
}

// groupIntents are the intents of a group's prefixes: what its peers agree
// on, and each peer's own (per, in the peers' order) where they are told
// different attributes (nil: they are not).
type groupIntents struct {
	agreed validator.AdvertisedGroup
	per    []validator.AdvertisedGroup
}

// advertisedGroup is the intent of the advertisements ads sent to peers for
// the pod CIDRs of each family and for each announced LoadBalancer
// Service's VIPs: what the peers receiving a prefix are told alike
// (agree), and where they are told different attributes, each peer's own
// (groupIntents.per, for AdvertisedGroup.Peers). It depends on what each
// peer is sent, not on the peers' addresses. Services sharing a VIP
// (LB-IPAM's sharing key) have their intents merged (mergeIntents); a
// prefix an unreadable advertisement selects has none.
func (o *Objects) advertisedGroup(ads []advert, peers []peerAds) *groupIntents {
	var g validator.AdvertisedGroup
	per := make([]validator.AdvertisedGroup, len(peers))
	isPodCIDR := func(a advert) bool { return a.typ == "PodCIDR" }
	var each []*validator.AttributeIntent
	g.PodCIDR, each, _ = prefixIntents(ads, peers, false, isPodCIDR)
	for i := range per {
		per[i].PodCIDR = each[i]
	}
	g.PodCIDR6, each, _ = prefixIntents(ads, peers, true, isPodCIDR)
	for i := range per {
		per[i].PodCIDR6 = each[i]
	}
	var unjudged map[netip.Addr]bool
	for _, s := range o.Services {
		svc := &s.Object
		if !bgpService(svc) {
			continue
		}
		labels := serviceLabels(svc)
		selects := func(a advert) bool {
			return a.typ == "Service" && a.lbIP && a.sel != nil && a.sel.Matches(labels)
		}
		for _, ing := range svc.Status.LoadBalancer.Ingress {
			if ing.IP == nil || !ing.IP.IsValid() {
				continue
			}
			ip := ing.IP.Addr
			in, each, bad := prefixIntents(ads, peers, ip.Is6(), selects)
			if bad {
				if unjudged == nil {
					unjudged = map[netip.Addr]bool{}
				}
				unjudged[ip] = true
				continue
			}
			addVIP(&g, ip, in)
			for i := range per {
				addVIP(&per[i], ip, each[i])
			}
		}
	}
	for ip := range unjudged {
		delete(g.VIPs, ip)
		for i := range per {
			delete(per[i].VIPs, ip)
		}
	}
	if !disputed(&g) {
		per = nil
	}
	return &groupIntents{agreed: g, per: per}
}

// addVIP merges in into g's intent for ip (nil in: nothing).
func addVIP(g *validator.AdvertisedGroup, ip netip.Addr, in *validator.AttributeIntent) {
	if in == nil {
		return
	}
	if g.VIPs == nil {
		g.VIPs = map[netip.Addr]*validator.AttributeIntent{}
	}
	g.VIPs[ip] = mergeIntents(g.VIPs[ip], in)
}

// intentOf merges the advertisements that select a prefix; nil when none of
// them sets attributes, or when one of them cannot be read (bad).
func intentOf(ads []advert, selects func(advert) bool) (in *validator.AttributeIntent, bad bool) {
	in = &validator.AttributeIntent{}
	set := false
	for _, a := range ads {
		if !selects(a) {
			continue
		}
		bad = bad || a.bad
		set = set || a.attrs.set()
		in.Advertisements = append(in.Advertisements, a.name)
		in.Communities = append(in.Communities, a.attrs.std...)
		in.LargeCommunities = append(in.LargeCommunities, a.attrs.large...)
		if a.attrs.localPref != nil {
			in.LocalPrefs = append(in.LocalPrefs, *a.attrs.localPref)
		}
	}
	if bad || !set {
		return nil, bad
	}
	sortIntent(in)
	return in, false
}

// mergeIntents is the intent for a VIP that two Services share, whatever
// their order: the union of the advertisements and communities, and the
// largest localPreference (the one Cilium applies). a may be nil.
func mergeIntents(a, b *validator.AttributeIntent) *validator.AttributeIntent {
	if a == nil {
		return b
	}
	m := &validator.AttributeIntent{
		Advertisements:   slices.Concat(a.Advertisements, b.Advertisements),
		Communities:      slices.Concat(a.Communities, b.Communities),
		LargeCommunities: slices.Concat(a.LargeCommunities, b.LargeCommunities),
		Disputed:         slices.Concat(a.Disputed, b.Disputed),
		Separate:         a.Separate && b.Separate,
	}
	if prefs := slices.Concat(a.LocalPrefs, b.LocalPrefs); len(prefs) > 0 {
		m.LocalPrefs = []uint32{slices.Max(prefs)}
	}
	sortIntent(m)
	return m
}

// sortIntent sorts the lists of in and drops repeats.
func sortIntent(in *validator.AttributeIntent) {
	for _, l := range []*[]string{&in.Advertisements, &in.Communities, &in.LargeCommunities, &in.Disputed} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	slices.Sort(in.LocalPrefs)
	in.LocalPrefs = slices.Compact(in.LocalPrefs)
}
