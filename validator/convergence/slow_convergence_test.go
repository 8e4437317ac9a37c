package convergence

import (
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

func TestSlow(t *testing.T) {
	b := Budgets{PodCIDRAnnounce: 5 * time.Second, PodCIDRWithdraw: 90 * time.Second, VIPAnnounce: 0,
		VIPWithdraw: 10 * time.Second}
	for _, tc := range []struct {
		name    string
		change  Change
		waited  time.Duration
		want    bool
		message string
	}{
		{"announcement within budget", Change{Key: key(PodCIDR, "10.244.1.0/24", "a"), Direction: Announce},
			5 * time.Second, false, ""},
		{"announcement over budget", Change{Key: key(PodCIDR, "10.244.1.0/24", "a"), Direction: Announce},
			6 * time.Second, true, "The announcement of pod CIDR 10.244.1.0/24 by a is still pending 6s after the " +
				"cluster changed (budget 5s)."},
		{"withdrawal within its longer budget", Change{Key: key(PodCIDR, "10.244.1.0/24", "a"), Direction: Withdraw},
			60 * time.Second, false, ""},
		{"VIP withdrawal over budget", Change{Key: key(VIP, "192.0.2.10/32", "b"), Direction: Withdraw},
			11 * time.Second, true, "The withdrawal of VIP 192.0.2.10/32 by b is still pending 11s"},
		{"budget 0 turns the kind off", Change{Key: key(VIP, "192.0.2.10/32", "b"), Direction: Announce},
			time.Hour, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.change
			c.Since = t0
			got := Slow([]Change{c}, b, validator.Options{}, t0.Add(tc.waited))
			if (len(got) == 1) != tc.want {
				t.Fatalf("findings %v, want slow=%v", got, tc.want)
			}
			if tc.want && (got[0].Rule != RuleSlowConvergence || got[0].Severity != validator.SeverityWarning ||
				got[0].Node != c.Key.Node || got[0].Prefix != c.Key.Prefix || !strings.HasPrefix(got[0].Message, tc.message)) {
				t.Errorf("finding %+v", got[0])
			}
		})
	}
}

// TestSlowFollowsTheRuleOptions: rules: {slow-convergence: …} disables the
// finding or sets its severity, as for every other rule.
func TestSlowFollowsTheRuleOptions(t *testing.T) {
	c := Change{Key: key(PodCIDR, "10.244.1.0/24", "a"), Direction: Announce, Since: t0}
	b := Budgets{PodCIDRAnnounce: time.Second}
	off := validator.Options{Rules: map[validator.RuleID]validator.RuleOptions{RuleSlowConvergence: {Disabled: true}}}
	if got := Slow([]Change{c}, b, off, t0.Add(time.Minute)); len(got) != 0 {
		t.Errorf("disabled: %v", got)
	}
	crit := validator.Options{Rules: map[validator.RuleID]validator.RuleOptions{
		RuleSlowConvergence: {Severity: validator.SeverityCritical}}}
	if got := Slow([]Change{c}, b, crit, t0.Add(time.Minute)); len(got) != 1 || got[0].Severity != validator.SeverityCritical {
		t.Errorf("severity critical: %v", got)
	}
}

func TestDefaultBudgets(t *testing.T) {
	b := DefaultBudgets(90*time.Second, 120*time.Second)
	if b.For(PodCIDR, Withdraw) != 210*time.Second || b.For(VIP, Withdraw) != 210*time.Second ||
		b.For(PodCIDR, Announce) != DefaultAnnounceBudget || b.For(VIP, Announce) != DefaultAnnounceBudget {
		t.Errorf("defaults %+v", b)
	}
}
