package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/routewarden/routewarden/bgp/dump"
	"github.com/routewarden/routewarden/validator"
)

// TestConformanceLessInputNoMoreFindings: on every dump of the conformance
// matrix that bgp/dump reads, removing a path attribute (communities, large
// communities, local preference, AS path: the source then does not show
// it) from every route, or removing any route that is not the cluster's,
// never adds a finding.
func TestConformanceLessInputNoMoreFindings(t *testing.T) {
	s := loadConformanceSpec(t)
	cluster := runCluster(t, s)
	c := &cluster
	// Judge what the nodes attach (spec.yaml: AS 65010, community 65010:100).
	pods := &validator.AttributeIntent{Communities: []string{"65010:100"}, Advertisements: []string{"pods"}}
	c.NodeASNs = map[string][]uint32{}
	c.Advertised = &validator.AdvertisedAttributes{NodeGroup: map[string]int{},
		Groups: []validator.AdvertisedGroup{{PodCIDR: pods, PodCIDR6: pods}}}
	for _, n := range c.Nodes {
		c.NodeASNs[n.Name] = []uint32{65010}
		c.Advertised.NodeGroup[n.Name] = 0
	}
	removals := []struct {
		name  string
		apply func(a *validator.Attributes)
	}{
		{"communities", func(a *validator.Attributes) { a.Communities, a.Unseen = nil, a.Unseen|validator.UnseenCommunities }},
		{"large communities", func(a *validator.Attributes) {
			a.LargeCommunities, a.Unseen = nil, a.Unseen|validator.UnseenLargeCommunities
		}},
		{"local preference", func(a *validator.Attributes) {
			a.LocalPref, a.HasLocalPref, a.Unseen = 0, false, a.Unseen|validator.UnseenLocalPref
		}},
		{"AS path", func(a *validator.Attributes) { a.ASPath, a.Unseen = nil, a.Unseen|validator.UnseenASPath }},
	}
	cells, network := 0, 0
	for _, v := range s.Variants {
		for _, format := range dump.Formats {
			for _, cell := range conformanceDumps[format] {
				var routes []validator.Route
				for _, f := range cell.files {
					rs, _, err := dump.ReadFile(filepath.Join(conformanceDir, v.Name, f), format)
					if err != nil {
						routes = nil
						break // TestConformanceCheck says why
					}
					routes = append(routes, rs...)
				}
				if routes == nil {
					continue
				}
				cells++
				where := v.Name + "/" + cell.name
				opts := validator.Options{}
				before := validator.Validate(c, routes, validator.PolicyView{}, opts).Findings
				for _, rm := range removals {
					less := slices.Clone(routes)
					for i := range less {
						rm.apply(less[i].Unshare())
					}
					noFindingAdded(t, where+": without "+rm.name, before, validator.Validate(c, less, validator.PolicyView{}, opts).Findings)
				}
				snap := validator.NewSnapshot(c, routes, validator.PolicyView{}, opts)
				for i := range routes {
					if snap.Network(i) {
						network++
						less := slices.Delete(slices.Clone(routes), i, i+1)
						noFindingAdded(t, fmt.Sprintf("%s: without %s", where, routes[i]), before,
							validator.Validate(c, less, validator.PolicyView{}, opts).Findings)
					}
				}
			}
		}
	}
	if cells < len(s.Variants)*4 || network == 0 {
		t.Errorf("%d dumps read, %d network routes removed: the matrix's dumps do not exercise this", cells, network)
	}
}

func noFindingAdded(t *testing.T, what string, before, after []validator.Finding) {
	t.Helper()
	for _, f := range after {
		if !slices.ContainsFunc(before, func(g validator.Finding) bool { return g.Key() == f.Key() }) {
			t.Errorf("%s: adds %s %s: %s", what, f.Rule, f.Prefix, f.Message)
		}
	}
}
