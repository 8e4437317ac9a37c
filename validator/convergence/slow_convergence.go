package convergence

import (
	"fmt"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// RuleSlowConvergence is the finding of a change still pending past its
// budget (validator.RuleSlowConvergence, whose catalogue entry gives its
// default severity: a warning, since the route may yet follow; stale-route or
// missing-route take over if it does not).
const RuleSlowConvergence = validator.RuleSlowConvergence

// Slow returns a slow-convergence finding for each pending change that has
// waited longer than its budget at now (a budget of 0 turns the kind off),
// with the rule's configured severity; none when the rule is disabled.
func Slow(pending []Change, b Budgets, opts validator.Options, now time.Time) []validator.Finding {
	if !opts.Enabled(RuleSlowConvergence) {
		return nil
	}
	severity := opts.Severity(RuleSlowConvergence)
	var out []validator.Finding
	for _, c := range pending {
		budget := b.For(c.Key.Kind, c.Direction)
		waited := now.Sub(c.Since)
		if budget <= 0 || waited <= budget {
			continue
		}
		out = append(out, validator.Finding{Rule: RuleSlowConvergence, Severity: severity,
			Prefix: c.Key.Prefix, Node: c.Key.Node, Owner: string(c.Key.Kind) + " " + string(c.Direction),
			Message: slowMessage(c, waited, budget), Hint: slowHint(c)})
	}
	return out
}

func slowMessage(c Change, waited, budget time.Duration) string {
	what := "pod CIDR"
	if c.Key.Kind == VIP {
		what = "VIP"
	}
	verb := "announcement"
	if c.Direction == Withdraw {
		verb = "withdrawal"
	}
	return fmt.Sprintf("The %s of %s %s by %s is still pending %s after the cluster changed (budget %s).",
		verb, what, c.Key.Prefix, c.Key.Node, waited.Round(time.Second), budget)
}

func slowHint(c Change) string {
	if c.Direction == Withdraw {
		return "The switch still routes to " + c.Key.Node + ": check the BGP session's hold time and " +
			"graceful-restart time on the ToR (a vanished node's routes stay for both)."
	}
	return "Check that Cilium's BGP control plane runs on " + c.Key.Node + " and that its advertisements " +
		"select this route (cilium bgp routes advertised)."
}
