package convergence

import (
	"strings"
	"testing"
	"time"
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
			got := Slow([]Change{c}, b, t0.Add(tc.waited))
			if (len(got) == 1) != tc.want {
				t.Fatalf("findings %v, want slow=%v", got, tc.want)
			}
			if tc.want && (got[0].Rule != RuleSlowConvergence || got[0].Severity != SlowConvergenceSeverity ||
				got[0].Node != c.Key.Node || got[0].Prefix != c.Key.Prefix || !strings.HasPrefix(got[0].Message, tc.message)) {
				t.Errorf("finding %+v", got[0])
			}
		})
	}
}

func TestDefaultBudgets(t *testing.T) {
	b := DefaultBudgets(90*time.Second, 120*time.Second)
	if b.For(PodCIDR, Withdraw) != 210*time.Second || b.For(VIP, Withdraw) != 210*time.Second ||
		b.For(PodCIDR, Announce) != DefaultAnnounceBudget || b.For(VIP, Announce) != DefaultAnnounceBudget {
		t.Errorf("defaults %+v", b)
	}
}
