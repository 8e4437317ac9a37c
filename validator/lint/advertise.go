package lint

import (
	"fmt"
	"slices"

	"github.com/routewarden/routewarden/validator"
)

// checkPodCIDRAdvertisement: pod CIDRs must really be advertised to
// routewarden, in the way the IPAM mode needs.
func checkPodCIDRAdvertisement(in Input, r *reporter) {
	mode := in.IPAMMode
	want := "PodCIDR"
	if mode == validator.IPAMMultiPool {
		want = "CiliumPodIPPool"
	}
	for _, cc := range in.Cilium.BGPClusterCfgs {
		for i, inst := range cc.Object.Spec.BGPInstances {
			for j, p := range inst.Peers {
				if len(in.Collector.Addresses) > 0 && !in.isCollector(p.Address()) || p.PeerConfig() == "" {
					continue
				}
				field := fmt.Sprintf("spec.bgpInstances[%d].peers[%d].peerConfigRef", i, j)
				pc := in.peerConfig(p.PeerConfig())
				if pc == nil {
					r.add(validator.SeverityWarning, where(cc), ccObject(cc), field,
						"CiliumBGPPeerConfig %q is not among the given files; pass it to check what is advertised",
						p.PeerConfig())
					continue
				}
				checkPeerConfigAds(in, pc, want, r)
			}
		}
	}
	for _, pp := range in.Cilium.BGPPeeringPols {
		for i, vr := range pp.Object.Spec.VirtualRouters {
			field := fmt.Sprintf("spec.virtualRouters[%d]", i)
			switch {
			case mode == validator.IPAMMultiPool && vr.PodIPPoolSelector == nil:
				r.add(validator.SeverityCritical, where(pp), ppObject(pp), field+".podIPPoolSelector",
					"IPAM is multi-pool, where exportPodCIDR does nothing: set podIPPoolSelector to announce the "+
						"pools' CIDRs")
			case mode.AdvertisesPodCIDRs() && mode != validator.IPAMMultiPool && !vr.ExportPodCIDR:
				r.add(validator.SeverityCritical, where(pp), ppObject(pp), field+".exportPodCIDR",
					"exportPodCIDR is false: the nodes' pod CIDRs are not announced (IPAM %s)", mode)
			case !mode.AdvertisesPodCIDRs() && mode != "" && vr.ExportPodCIDR:
				r.add(validator.SeverityInfo, where(pp), ppObject(pp), field+".exportPodCIDR",
					"IPAM %s has no per-node pod CIDRs: exportPodCIDR announces nothing", mode)
			}
		}
	}
}

func checkPeerConfigAds(in Input, pc *peerConfig, want string, r *reporter) {
	families := pc.Object.Spec.Families
	if len(families) == 0 {
		r.add(validator.SeverityCritical, where(*pc), pcObject(*pc), "spec.families",
			"no address families: nothing is advertised to routewarden")
		return
	}
	for i, f := range families {
		field := fmt.Sprintf("spec.families[%d].advertisements", i)
		if f.SAFI != "unicast" || f.AFI != "ipv4" && f.AFI != "ipv6" {
			continue
		}
		if f.Advertisements == nil {
			r.add(validator.SeverityCritical, where(*pc), pcObject(*pc), field,
				"%s/%s has no advertisement selector: nothing of this family is advertised", f.AFI, f.SAFI)
			continue
		}
		var types []string
		for _, ad := range in.Cilium.BGPAdverts {
			if f.Advertisements.Matches(ad.Object.Metadata.Labels) {
				types = append(types, ad.Object.Types()...)
			}
		}
		switch {
		case !in.IPAMMode.AdvertisesPodCIDRs() && in.IPAMMode != "":
			if slices.Contains(types, "PodCIDR") {
				r.add(validator.SeverityInfo, where(*pc), pcObject(*pc), field,
					"IPAM %s has no per-node pod CIDRs: the PodCIDR advertisement announces nothing", in.IPAMMode)
			}
		case len(in.Cilium.BGPAdverts) == 0:
			// Advertisements not given: nothing to judge.
		case !slices.Contains(types, want):
			msg := "%s/%s selects no %s advertisement: pod CIDRs are not announced"
			if want == "CiliumPodIPPool" && slices.Contains(types, "PodCIDR") {
				msg += " (IPAM is multi-pool, where PodCIDR advertisements are disabled)"
			}
			r.add(validator.SeverityCritical, where(*pc), pcObject(*pc), field, msg, f.AFI, f.SAFI, want)
		}
	}
}
