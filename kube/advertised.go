package kube

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/lint"
)

// advert is one entry of a CiliumBGPAdvertisement's advertisements[].
type advert struct {
	name  string // of the CiliumBGPAdvertisement
	typ   string // advertisementType
	sel   *lint.Selector
	lbIP  bool // a Service advertisement of LoadBalancerIP addresses
	attrs attrValues
	bad   bool // its attributes cannot be read: the prefixes it selects go unjudged
}

// advertisedAttributes derives what the advertisements tell each node to
// attach to its pod CIDRs and Service VIPs: nil when no advertisement sets
// attributes. The advertisements a node uses are those its peers' families
// select (CiliumBGPClusterConfigs selecting the node, their peers'
// CiliumBGPPeerConfigs); without any CiliumBGPPeerConfig among the objects,
// every advertisement counts for every node, as for the VIP announcers.
// Overlapping advertisements are merged: the union of their communities.
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
				a.sel = toSelector(ad.Selector)
			}
			a.lbIP = ad.Service != nil && slices.Contains(ad.Service.Addresses, "LoadBalancerIP")
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
	byKey := map[string]int{}
	for _, n := range o.Nodes {
		names := o.advertsOf(n.Object.Metadata.Labels)
		if len(names) == 0 {
			continue
		}
		key := strings.Join(names, "\x00")
		g, ok := byKey[key]
		if !ok {
			g = len(out.Groups)
			byKey[key] = g
			out.Groups = append(out.Groups, o.advertisedGroup(slices.DeleteFunc(slices.Clone(ads), func(a advert) bool {
				_, found := slices.BinarySearch(names, a.name)
				return !found
			})))
		}
		out.NodeGroup[n.Object.Metadata.Name] = g
	}
	return out, nil
}

// advertsOf names the CiliumBGPAdvertisements a node with these labels uses, sorted.
func (o *Objects) advertsOf(labels map[string]string) []string {
	var names []string
	for _, s := range o.BGPAdverts {
		if len(o.BGPPeerCfgs) == 0 || o.nodePeerConfigsSelect(labels, s.Object.Metadata.Labels) {
			names = append(names, s.Object.Metadata.Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// nodePeerConfigsSelect reports whether a family of a CiliumBGPPeerConfig
// that a peer of the node refers to selects an advertisement with adLabels.
func (o *Objects) nodePeerConfigsSelect(nodeLabels, adLabels map[string]string) bool {
	for _, cc := range o.BGPClusterCfgs {
		if !toSelector(cc.Object.Spec.NodeSelector).Matches(nodeLabels) {
			continue
		}
		for _, in := range cc.Object.Spec.BGPInstances {
			for _, p := range in.Peers {
				if p.PeerConfigRef != nil && o.peerConfigNamedSelects(p.PeerConfigRef.Name, adLabels) {
					return true
				}
			}
		}
	}
	return false
}

func (o *Objects) peerConfigNamedSelects(name string, adLabels map[string]string) bool {
	for _, pc := range o.BGPPeerCfgs {
		if pc.Object.Metadata.Name != name {
			continue
		}
		for _, f := range pc.Object.Spec.Families {
			if f.Advertisements != nil && toSelector(f.Advertisements).Matches(adLabels) {
				return true
			}
		}
	}
	return false
}

// advertisedGroup is the intent of the advertisements ads for the pod CIDRs
// and for each announced LoadBalancer Service's VIPs. Services sharing a VIP
// (LB-IPAM's sharing key) have their intents merged (mergeIntents); a prefix
// an unreadable advertisement selects has none.
func (o *Objects) advertisedGroup(ads []advert) validator.AdvertisedGroup {
	var g validator.AdvertisedGroup
	g.PodCIDR, _ = intentOf(ads, func(a advert) bool { return a.typ == "PodCIDR" })
	var unjudged map[netip.Addr]bool
	for _, s := range o.Services {
		svc := &s.Object
		if svc.Spec.Type != "LoadBalancer" || svc.Spec.LoadBalancerClass != nil && *svc.Spec.LoadBalancerClass != ciliumLBClass {
			continue
		}
		labels := serviceLabels(svc)
		in, bad := intentOf(ads, func(a advert) bool {
			return a.typ == "Service" && a.lbIP && a.sel != nil && a.sel.Matches(labels)
		})
		if in == nil && !bad {
			continue
		}
		for _, ing := range svc.Status.LoadBalancer.Ingress {
			if ing.IP == nil || !ing.IP.IsValid() {
				continue
			}
			ip := ing.IP.Addr
			if bad {
				if unjudged == nil {
					unjudged = map[netip.Addr]bool{}
				}
				unjudged[ip] = true
				continue
			}
			if g.VIPs == nil {
				g.VIPs = map[netip.Addr]*validator.AttributeIntent{}
			}
			g.VIPs[ip] = mergeIntents(g.VIPs[ip], in)
		}
	}
	for ip := range unjudged {
		delete(g.VIPs, ip)
	}
	return g
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
	}
	if prefs := slices.Concat(a.LocalPrefs, b.LocalPrefs); len(prefs) > 0 {
		m.LocalPrefs = []uint32{slices.Max(prefs)}
	}
	sortIntent(m)
	return m
}

// sortIntent sorts the lists of in and drops repeats.
func sortIntent(in *validator.AttributeIntent) {
	for _, l := range []*[]string{&in.Advertisements, &in.Communities, &in.LargeCommunities} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	slices.Sort(in.LocalPrefs)
	in.LocalPrefs = slices.Compact(in.LocalPrefs)
}
