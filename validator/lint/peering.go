package lint

import (
	"fmt"

	"github.com/routewarden/routewarden/validator"
)

// checkPeering: routewarden must be a peer of every BGP instance, with the ASN
// it is configured with; otherwise it sees no routes from those nodes.
func checkPeering(in Input, r *reporter) {
	if len(in.Collector.Addresses) == 0 {
		if len(in.Cilium.BGPClusterCfgs)+len(in.Cilium.BGPPeeringPols) > 0 {
			r.add(validator.SeverityWarning, in.Collector.Where, "", "bgp.peerAddress",
				"routewarden's own address is not configured, so it cannot tell whether Cilium peers with it; "+
					"set bgp.peerAddress (the address the nodes connect to)")
		}
		return
	}
	for _, cc := range in.Cilium.BGPClusterCfgs {
		for i, inst := range cc.Object.Spec.BGPInstances {
			field := fmt.Sprintf("spec.bgpInstances[%d]", i)
			found := false
			for j, p := range inst.Peers {
				if !p.Address().IsValid() || !in.isCollector(p.Address()) {
					continue
				}
				found = true
				if p.PeerASN != in.Collector.ASN {
					r.add(validator.SeverityCritical, where(cc), ccObject(cc), fmt.Sprintf("%s.peers[%d].peerASN", field, j),
						"peer %s (routewarden) has peerASN %d, but routewarden's bgp.asn is %d: the session "+
							"will not come up", p.Address(), p.PeerASN, in.Collector.ASN)
				}
				if p.PeerConfig() == "" {
					r.add(validator.SeverityWarning, where(cc), ccObject(cc), fmt.Sprintf("%s.peers[%d].peerConfigRef", field, j),
						"the routewarden peer has no peerConfigRef: Cilium then advertises nothing to it")
				}
			}
			if !found {
				r.add(validator.SeverityCritical, where(cc), ccObject(cc), field+".peers",
					"BGP instance %q (local ASN %d) has no peer at routewarden's address %s: routewarden "+
						"will not see these nodes' routes", inst.Name, inst.LocalASN, in.Collector.Addresses[0])
			}
		}
	}
	for _, pp := range in.Cilium.BGPPeeringPols {
		for i, vr := range pp.Object.Spec.VirtualRouters {
			field := fmt.Sprintf("spec.virtualRouters[%d]", i)
			found := false
			for j, n := range vr.Neighbors {
				addr := n.PeerAddress.Prefix
				if !addr.IsValid() || !addr.IsSingleIP() || !in.isCollector(addr.Addr()) {
					continue
				}
				found = true
				if n.PeerASN != in.Collector.ASN {
					r.add(validator.SeverityCritical, where(pp), ppObject(pp), fmt.Sprintf("%s.neighbors[%d].peerASN", field, j),
						"neighbor %s (routewarden) has peerASN %d, but routewarden's bgp.asn is %d",
						addr, n.PeerASN, in.Collector.ASN)
				}
			}
			if !found {
				r.add(validator.SeverityCritical, where(pp), ppObject(pp), field+".neighbors",
					"virtual router (local ASN %d) has no neighbor %s/32 (routewarden)", vr.LocalASN,
					in.Collector.Addresses[0])
			}
		}
	}
	if l := in.Legacy; l != nil {
		found := false
		for i, p := range l.Peers {
			if in.isCollector(p.Address) {
				found = true
				if p.ASN != in.Collector.ASN {
					r.add(validator.SeverityCritical, l.Where, "ConfigMap kube-system/bgp-config",
						fmt.Sprintf("config.yaml peers[%d].peer-asn", i),
						"peer %s (routewarden) has peer-asn %d, but routewarden's bgp.asn is %d", p.Address, p.ASN,
						in.Collector.ASN)
				}
			}
		}
		if !found {
			r.add(validator.SeverityCritical, l.Where, "ConfigMap kube-system/bgp-config", "config.yaml peers",
				"no peer at routewarden's address %s", in.Collector.Addresses[0])
		}
	}
}
