package lint

import (
	"fmt"

	"github.com/routewarden/routewarden/validator"
)

// checkLegacySpeaker: the legacy MetalLB-based speaker announces
// Node.spec.podCIDRs, which is wrong under cluster-pool IPAM (cilium/cilium#18852).
func checkLegacySpeaker(in Input, r *reporter) {
	l := in.Legacy
	cfg := in.Cilium.CiliumConfig()
	legacy := l != nil || cfg != nil && cfg.Object.Data["bgp-announce-pod-cidr"] == "true"
	if legacy && in.IPAMMode == validator.IPAMClusterPool {
		where, obj, field := "", "ConfigMap kube-system/cilium-config", "bgp-announce-pod-cidr"
		if cfg != nil {
			where = cfg.Pos.String()
		}
		if l != nil {
			where, obj, field = l.Where, "ConfigMap kube-system/bgp-config", "config.yaml"
		}
		r.add(validator.SeverityCritical, where, obj, field,
			"the legacy BGP speaker announces Node.spec.podCIDRs, but IPAM is cluster-pool, where Cilium routes "+
				"CiliumNode spec.ipam.podCIDRs: nodes will announce each other's CIDRs (cilium/cilium#18852). Use "+
				"the BGP control plane instead")
	}
	if l == nil {
		return
	}
	for i, pool := range l.AddressPools {
		for _, p := range pool.Prefixes {
			for _, rng := range in.PodRanges {
				if rng.Overlaps(p) {
					r.add(validator.SeverityCritical, l.Where, "ConfigMap kube-system/bgp-config",
						fmt.Sprintf("config.yaml address-pools[%d].addresses", i),
						"address pool %q (%s) overlaps the pod range %s: LoadBalancer IPs and pod IPs collide",
						pool.Name, p, rng)
				}
			}
		}
	}
	if len(l.AddressPools) > 0 && len(in.PodRanges) == 0 && in.IPAMMode == validator.IPAMClusterPool {
		r.add(validator.SeverityWarning, l.Where, "ConfigMap kube-system/bgp-config", "config.yaml address-pools",
			"the cluster pool ranges are unknown (cilium-config has no cluster-pool-ipv4-cidr): cannot check "+
				"the address pools against them")
	}
}
