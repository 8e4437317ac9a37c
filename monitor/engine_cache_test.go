package monitor

import (
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// TestEngineCacheMatchesValidate runs the loop's validation through the
// engine cache over a sequence of route, cluster, tombstone, option, time
// and policy-view changes and compares each result with a full
// validator.Validate.
func TestEngineCacheMatchesValidate(t *testing.T) {
	_, cl := world()
	c := cl.c
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	gone := validator.DeletedNode{Name: "node3", Addresses: []netip.Addr{netip.MustParseAddr("10.0.0.13")},
		CIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.3.0/24")}, DeletedAt: now.Add(-time.Minute)}
	stale := validator.Route{Prefix: netip.MustParsePrefix("10.244.3.0/24"),
		Attributes: &validator.Attributes{NextHop: netip.MustParseAddr("10.0.0.13")}}
	withTombstone := *c
	withTombstone.Deleted = []validator.DeletedNode{gone}
	// The ToR's policy drops node2's CIDR, which it received from node2.
	dropped := validator.PolicyView{Drops: []validator.PolicyDrop{{Router: "127.0.0.1", Route: healthy()[1]}}}
	steps := []struct {
		name          string
		cluster       *validator.Cluster
		version       uint64
		routes        []validator.Route
		opts          validator.Options
		after         time.Duration
		policy        validator.PolicyView
		policyVersion uint64
	}{
		{name: "healthy", cluster: c, routes: healthy()},
		{name: "a route withdrawn", cluster: c, routes: withdrawn()},
		{name: "a stale route", cluster: c, routes: append(healthy(), stale)},
		{name: "a node deleted (new version)", cluster: &withTombstone, version: 1, routes: append(healthy(), stale)},
		{name: "time passes: the tombstone ages", cluster: &withTombstone, version: 1,
			routes: append(healthy(), stale), after: 5 * time.Minute},
		{name: "the tombstone expires (same version)", cluster: c, version: 1, routes: append(healthy(), stale),
			after: 10 * time.Minute},
		{name: "a rule disabled", cluster: c, version: 1, routes: withdrawn(),
			opts: validator.Options{Rules: map[validator.RuleID]validator.RuleOptions{
				validator.RuleMissingRoute: {Disabled: true}}}},
		{name: "the rule enabled again", cluster: c, version: 1, routes: withdrawn()},
		{name: "the ToR's policy drops it (new policy version)", cluster: c, version: 1, routes: withdrawn(),
			policy: dropped, policyVersion: 1},
		{name: "the same drop (same policy version)", cluster: c, version: 1, routes: withdrawn(),
			policy: dropped, policyVersion: 1, after: time.Minute},
		{name: "the drop ends (new policy version)", cluster: c, version: 1, routes: withdrawn(), policyVersion: 2},
	}
	var cache engineCache
	for i, st := range steps {
		opts := st.opts
		opts.Now = now.Add(st.after)
		// Every other step hands its routes over, as the Store's do.
		in := judged{cluster: st.cluster, version: st.version, policy: st.policy, policyVersion: st.policyVersion}
		got := cache.validate(in, slices.Clone(st.routes), opts, i%2 == 1)
		want := validator.Validate(st.cluster, st.routes, st.policy, opts)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: engine cache returned\n%+v\nwant\n%+v", st.name, got, want)
		}
		if st.policy.Drops != nil && got.Summary.ByRule[string(validator.RuleFilteredAtToR)] != 1 {
			t.Fatalf("%s: %v, want one filtered-at-tor finding", st.name, got.Summary.ByRule)
		}
	}
}
