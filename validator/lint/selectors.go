package lint

import (
	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/validator"
)

// checkSelectors: a node selector that selects no node configures nothing.
func checkSelectors(in Input, r *reporter) {
	nodes := in.Cilium.Nodes
	if len(nodes) == 0 {
		return
	}
	selects := func(s *cilium.LabelSelector) bool {
		for _, n := range nodes {
			if s.Matches(n.Object.Metadata.Labels) {
				return true
			}
		}
		return false
	}
	for _, cc := range in.Cilium.BGPClusterCfgs {
		if !selects(cc.Object.Spec.NodeSelector) {
			r.add(validator.SeverityWarning, where(cc), ccObject(cc), "spec.nodeSelector",
				"selects none of the %d given nodes", len(nodes))
		}
	}
	for _, pp := range in.Cilium.BGPPeeringPols {
		if !selects(pp.Object.Spec.NodeSelector) {
			r.add(validator.SeverityWarning, where(pp), ppObject(pp), "spec.nodeSelector",
				"selects none of the %d given nodes", len(nodes))
		}
	}
}
