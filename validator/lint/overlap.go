package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// checkAdvertisementOverlaps: two CiliumBGPAdvertisements that select the
// same prefix for the same peers (a Service, or the pod CIDRs) with
// different attributes. Cilium releases without the fix of
// cilium/cilium#35721 apply one of them and silently drop the other's
// communities; with it the route carries their union, which is rarely what
// either author meant. Without CiliumBGPPeerConfigs every advertisement is
// taken as used by the same peers.
func checkAdvertisementOverlaps(in Input, r *reporter) {
	var groups [][]int // indexes into in.Advertisements used together
	if len(in.PeerConfigs) == 0 {
		all := make([]int, len(in.Advertisements))
		for i := range all {
			all[i] = i
		}
		groups = append(groups, all)
	}
	for _, pc := range in.PeerConfigs {
		for _, f := range pc.Families {
			if f.Advertisements == nil {
				continue
			}
			var g []int
			for i, ad := range in.Advertisements {
				if f.Advertisements.Matches(ad.Labels) {
					g = append(g, i)
				}
			}
			groups = append(groups, g)
		}
	}
	seen := map[string]bool{}
	for _, g := range groups {
		overlaps(in, g, "the pod CIDRs", func(e AdvertisementEntry) bool { return e.Type == "PodCIDR" }, seen, r)
		for _, svc := range in.Services {
			overlaps(in, g, "Service "+svc.Name, func(e AdvertisementEntry) bool {
				return e.Type == "Service" && e.LoadBalancerIP && e.Selector != nil && e.Selector.Matches(svc.Labels)
			}, seen, r)
		}
	}
}

// selected is an advertisement entry that selects a prefix.
type selected struct {
	ad, entry int
}

// overlaps reports each pair of advertisements in group that select target
// with different attributes, once, at the second one.
func overlaps(in Input, group []int, target string, selects func(AdvertisementEntry) bool, seen map[string]bool,
	r *reporter) {
	var sel []selected
	for _, i := range group {
		for j, e := range in.Advertisements[i].Entries {
			if selects(e) {
				sel = append(sel, selected{i, j})
			}
		}
	}
	slices.SortFunc(sel, func(a, b selected) int {
		return strings.Compare(in.Advertisements[a.ad].Name, in.Advertisements[b.ad].Name)
	})
	for k, b := range sel {
		for _, a := range sel[:k] {
			ea, eb := in.Advertisements[a.ad].Entries[a.entry], in.Advertisements[b.ad].Entries[b.entry]
			ada, adb := in.Advertisements[a.ad], in.Advertisements[b.ad]
			key := fmt.Sprintf("%s|%s[%d]|%s[%d]", target, ada.Name, a.entry, adb.Name, b.entry)
			if a.ad == b.ad || ea.Attributes == eb.Attributes || seen[key] {
				continue
			}
			seen[key] = true
			field := fmt.Sprintf("spec.advertisements[%d]", b.entry)
			if eb.Attributes != "" {
				field += ".attributes"
			}
			r.add(validator.SeverityWarning, adb.Where, adb.object(), field,
				"selects %s for the same peers as CiliumBGPAdvertisement %s (spec.advertisements[%d]), with other "+
					"attributes (here: %s; there: %s): Cilium releases without the fix of cilium/cilium#35721 apply "+
					"one advertisement's attributes and silently drop the other's communities, later releases send "+
					"their union. "+
					"Give %s one advertisement, or the same attributes in both",
				target, ada.Name, a.entry, orNone(eb.Attributes), orNone(ea.Attributes), target)
		}
	}
}

func orNone(attrs string) string {
	if attrs == "" {
		return "none"
	}
	return attrs
}

func (a Advertisement) object() string { return "CiliumBGPAdvertisement " + a.Name }
