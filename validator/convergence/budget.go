package convergence

import "time"

// Budgets are how long each kind of change may take before it is slow.
type Budgets struct {
	PodCIDRAnnounce time.Duration `json:"podCidrAnnounce"`
	PodCIDRWithdraw time.Duration `json:"podCidrWithdraw"`
	VIPAnnounce     time.Duration `json:"vipAnnounce"`
	VIPWithdraw     time.Duration `json:"vipWithdraw"`
}

// DefaultAnnounceBudget is the default budget of announcements: Cilium
// announces within a reconciliation, well under a second.
const DefaultAnnounceBudget = 5 * time.Second

// DefaultBudgets are the budgets when none is configured: announcements
// DefaultAnnounceBudget, withdrawals holdTime+restartTime (a node that
// vanishes is noticed when its session's hold timer expires, and a ToR that
// helps graceful restart keeps its routes for the restart time after that).
func DefaultBudgets(holdTime, restartTime time.Duration) Budgets {
	w := holdTime + restartTime
	return Budgets{PodCIDRAnnounce: DefaultAnnounceBudget, PodCIDRWithdraw: w,
		VIPAnnounce: DefaultAnnounceBudget, VIPWithdraw: w}
}

// For returns the budget of a change of kind k in direction d.
func (b Budgets) For(k Kind, d Direction) time.Duration {
	switch {
	case k == PodCIDR && d == Announce:
		return b.PodCIDRAnnounce
	case k == PodCIDR:
		return b.PodCIDRWithdraw
	case d == Announce:
		return b.VIPAnnounce
	}
	return b.VIPWithdraw
}
