package lint

import "github.com/routewarden/routewarden/validator"

// checkSelectors: a node selector that selects no node configures nothing.
func checkSelectors(in Input, r *reporter) {
	if len(in.Nodes) == 0 {
		return
	}
	selects := func(s *Selector) bool {
		for _, n := range in.Nodes {
			if s.Matches(n.Labels) {
				return true
			}
		}
		return false
	}
	for _, cc := range in.ClusterConfigs {
		if !selects(cc.NodeSelector) {
			r.add(validator.SeverityWarning, cc.Where, cc.object(), "spec.nodeSelector",
				"selects none of the %d given nodes", len(in.Nodes))
		}
	}
	for _, pp := range in.PeeringPolicies {
		if !selects(pp.NodeSelector) {
			r.add(validator.SeverityWarning, pp.Where, pp.object(), "spec.nodeSelector",
				"selects none of the %d given nodes", len(in.Nodes))
		}
	}
}
