package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/routewarden/routewarden/cilium"
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
	ads := in.Cilium.BGPAdverts
	var groups [][]int // indexes into ads used together
	if len(in.Cilium.BGPPeerCfgs) == 0 {
		all := make([]int, len(ads))
		for i := range all {
			all[i] = i
		}
		groups = append(groups, all)
	}
	for _, pc := range in.Cilium.BGPPeerCfgs {
		for _, f := range pc.Object.Spec.Families {
			if f.Advertisements == nil {
				continue
			}
			var g []int
			for i, ad := range ads {
				if f.Advertisements.Matches(ad.Object.Metadata.Labels) {
					g = append(g, i)
				}
			}
			groups = append(groups, g)
		}
	}
	seen := map[string]bool{}
	services := in.Cilium.BGPServices()
	for _, g := range groups {
		overlaps(ads, g, "the pod CIDRs", func(e cilium.BGPAdvertisementEntry) bool {
			return e.AdvertisementType == "PodCIDR"
		}, seen, r)
		for _, svc := range services {
			overlaps(ads, g, "Service "+svc.Name, func(e cilium.BGPAdvertisementEntry) bool {
				return e.AdvertisementType == "Service" && e.LoadBalancerIP() && e.Selector != nil &&
					e.Selector.Matches(svc.Labels)
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
func overlaps(ads []advertisement, group []int, target string, selects func(cilium.BGPAdvertisementEntry) bool,
	seen map[string]bool, r *reporter) {
	var sel []selected
	for _, i := range group {
		for j, e := range ads[i].Object.Spec.Advertisements {
			if selects(e) {
				sel = append(sel, selected{i, j})
			}
		}
	}
	slices.SortFunc(sel, func(a, b selected) int {
		return strings.Compare(ads[a.ad].Object.Metadata.Name, ads[b.ad].Object.Metadata.Name)
	})
	for k, b := range sel {
		for _, a := range sel[:k] {
			ada, adb := ads[a.ad], ads[b.ad]
			na, nb := ada.Object.Metadata.Name, adb.Object.Metadata.Name
			attrsA := ada.Object.Spec.Advertisements[a.entry].AttributesText()
			attrsB := adb.Object.Spec.Advertisements[b.entry].AttributesText()
			key := fmt.Sprintf("%s|%s[%d]|%s[%d]", target, na, a.entry, nb, b.entry)
			if a.ad == b.ad || attrsA == attrsB || seen[key] {
				continue
			}
			seen[key] = true
			field := fmt.Sprintf("spec.advertisements[%d]", b.entry)
			if attrsB != "" {
				field += ".attributes"
			}
			r.add(validator.SeverityWarning, where(adb), adObject(adb), field,
				"selects %s for the same peers as CiliumBGPAdvertisement %s (spec.advertisements[%d]), with other "+
					"attributes (here: %s; there: %s): Cilium releases without the fix of cilium/cilium#35721 apply "+
					"one advertisement's attributes and silently drop the other's communities, later releases send "+
					"their union. "+
					"Give %s one advertisement, or the same attributes in both",
				target, na, a.entry, orNone(attrsB), orNone(attrsA), target)
		}
	}
}

func orNone(attrs string) string {
	if attrs == "" {
		return "none"
	}
	return attrs
}
