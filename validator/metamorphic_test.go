package validator

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestMetamorphicLessInputNoMoreFindings: removing a path attribute from
// the input (the source then cannot show it: Attributes.Unseen) or removing
// a route that is not the cluster's (the network's, scope.go) never adds a
// finding. Random clusters with attribute intents and origin ASNs, random
// routes with communities, large communities, local preference and AS
// paths. (The next hop is not among the attributes removed: it attributes
// a route to its node, and without it the peer address does.)
func TestMetamorphicLessInputNoMoreFindings(t *testing.T) {
	removals := []struct {
		name  string
		apply func(a *Attributes)
	}{
		{"communities", func(a *Attributes) { a.Communities, a.Unseen = nil, a.Unseen|UnseenCommunities }},
		{"large communities", func(a *Attributes) {
			a.LargeCommunities, a.Unseen = nil, a.Unseen|UnseenLargeCommunities
		}},
		{"local preference", func(a *Attributes) {
			a.LocalPref, a.HasLocalPref, a.Unseen = 0, false, a.Unseen|UnseenLocalPref
		}},
		{"AS path", func(a *Attributes) { a.ASPath, a.Unseen = nil, a.Unseen|UnseenASPath }},
	}
	checked := map[string]int{}
	for seed := range uint64(400) {
		c, rs, opts := randomInputs(seed)
		rnd := rand.New(rand.NewPCG(seed, 99))
		addRandomServices(c, rnd)
		addRandomIntent(c, rs, rnd)
		opts.NetworkRanges = pfxs("10.0.3.0/24", "8.8.0.0/16")[:rnd.IntN(3)]
		before := keys(Validate(c, rs, PolicyView{}, opts).Findings)
		for _, rm := range removals {
			if len(rs) == 0 {
				break
			}
			// From one route, and from all (a source that never shows it).
			k := rnd.IntN(len(rs))
			less := append([]Route(nil), rs...)
			rm.apply(less[k].Unshare())
			checked[rm.name]++
			noneAdded(t, fmt.Sprintf("seed %d: %s removed from %s", seed, rm.name, rs[k]), before,
				Validate(c, less, PolicyView{}, opts).Findings)
			for i := range less {
				rm.apply(less[i].Unshare())
			}
			noneAdded(t, fmt.Sprintf("seed %d: %s removed from every route", seed, rm.name), before,
				Validate(c, less, PolicyView{}, opts).Findings)
		}
		s := NewSnapshot(c, rs, PolicyView{}, opts)
		for i := range rs {
			if !s.Network(i) {
				continue
			}
			less := append(append([]Route(nil), rs[:i]...), rs[i+1:]...)
			checked["network route"]++
			noneAdded(t, fmt.Sprintf("seed %d: network route %s removed", seed, rs[i]), before,
				Validate(c, less, PolicyView{}, opts).Findings)
		}
	}
	for _, what := range []string{"communities", "large communities", "local preference", "AS path", "network route"} {
		if checked[what] < 50 {
			t.Errorf("only %d inputs without %s: the random inputs do not exercise it", checked[what], what)
		}
	}
}

// addRandomIntent gives the random cluster's nodes origin ASNs and an
// advertisement intent, and its routes attributes that match it or not.
func addRandomIntent(c *Cluster, rs []Route, rnd *rand.Rand) {
	c.NodeASNs = map[string][]uint32{}
	c.Advertised = &AdvertisedAttributes{NodeGroup: map[string]int{}, Groups: []AdvertisedGroup{{
		PodCIDR: &AttributeIntent{Communities: []string{"65010:100"}, LargeCommunities: []string{"65010:1:1"},
			LocalPrefs: []uint32{200}, Advertisements: []string{"pods"}},
		PodCIDR6: &AttributeIntent{Communities: []string{"65010:100"}, Advertisements: []string{"pods"}}}}}
	for _, n := range c.Nodes {
		if rnd.IntN(3) > 0 {
			c.NodeASNs[n.Name] = []uint32{65010}
			c.Advertised.NodeGroup[n.Name] = 0
		}
	}
	pick := func(ss ...[]string) []string { return ss[rnd.IntN(len(ss))] }
	for i := range rs {
		a := rs[i].Unshare()
		// Mostly as told, so that removing an attribute would be noticed.
		a.Communities = pick([]string{"65010:100"}, []string{"65010:100"}, nil, []string{"65010:999"})
		a.LargeCommunities = pick([]string{"65010:1:1"}, []string{"65010:1:1"}, nil, []string{"65010:1:2"})
		a.ASPath = [][]uint32{nil, {65010}, {65010}, {65000, 65099}}[rnd.IntN(4)]
		if rnd.IntN(4) > 0 {
			a.LocalPref, a.HasLocalPref = uint32(200-100*rnd.IntN(2)), true
		}
	}
}

func keys(fs []Finding) map[string]bool {
	out := map[string]bool{}
	for _, f := range fs {
		out[f.Key()] = true
	}
	return out
}

// noneAdded fails when after holds a finding (by Key) that before lacks.
func noneAdded(t *testing.T, what string, before map[string]bool, after []Finding) {
	t.Helper()
	for _, f := range after {
		if !before[f.Key()] {
			t.Errorf("%s: adds %s %s: %s", what, f.Rule, f.Prefix, f.Message)
		}
	}
}
