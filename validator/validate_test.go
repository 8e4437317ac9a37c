package validator

import "testing"

func TestValidateAppliesRuleOptions(t *testing.T) {
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1, n2)
	rs := routes("10.244.2.0/24@10.0.0.11", "10.244.2.0/24@10.0.0.12")
	cases := []struct {
		name string
		opts Options
		want map[RuleID]Severity
	}{
		{"defaults", Options{}, map[RuleID]Severity{RuleForeignCIDR: SeverityCritical, RuleMissingRoute: SeverityCritical,
			RuleDuplicateOrigin: SeverityWarning}},
		{"disabled and overridden", Options{Rules: map[RuleID]RuleOptions{
			RuleMissingRoute: {Disabled: true}, RuleDuplicateOrigin: {Severity: SeverityCritical},
			RuleForeignCIDR: {Severity: SeverityInfo}}},
			map[RuleID]Severity{RuleForeignCIDR: SeverityInfo, RuleDuplicateOrigin: SeverityCritical}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Validate(c, rs, PolicyView{}, tc.opts)
			got := map[RuleID]Severity{}
			for _, f := range res.Findings {
				got[f.Rule] = f.Severity
			}
			if len(got) != len(tc.want) {
				t.Fatalf("rules %v, want %v", got, tc.want)
			}
			for id, sev := range tc.want {
				if got[id] != sev {
					t.Errorf("%s: severity %s, want %s", id, got[id], sev)
				}
			}
		})
	}
}

func TestValidateIsDeterministic(t *testing.T) {
	c, rs := syntheticCluster(300, 3000)
	first := Validate(c, rs, PolicyView{}, Options{})
	for i := range 3 {
		// Reverse the input order: the output must not change.
		rev := make([]Route, len(rs))
		for j := range rs {
			rev[len(rs)-1-j] = rs[j]
		}
		again := Validate(c, rev, PolicyView{}, Options{})
		if len(again.Findings) != len(first.Findings) {
			t.Fatalf("run %d: %d findings, want %d", i, len(again.Findings), len(first.Findings))
		}
		for j := range again.Findings {
			if again.Findings[j] != first.Findings[j] {
				t.Fatalf("run %d: finding %d differs:\n%+v\n%+v", i, j, again.Findings[j], first.Findings[j])
			}
		}
		rs = rev
	}
}
