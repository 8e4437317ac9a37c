package config

import (
	"cmp"
	"time"

	"github.com/routewarden/routewarden/validator/convergence"
)

// ConvergenceConfig are the budgets of route changes: a change the cluster
// asked for that the routes have not made within its budget is a
// slow-convergence finding. 0 takes the default (ConvergenceBudgets).
type ConvergenceConfig struct {
	PodCIDRAnnounce time.Duration `mapstructure:"podCidrAnnounce" yaml:"podCidrAnnounce"`
	PodCIDRWithdraw time.Duration `mapstructure:"podCidrWithdraw" yaml:"podCidrWithdraw"`
	VIPAnnounce     time.Duration `mapstructure:"vipAnnounce" yaml:"vipAnnounce"`
	VIPWithdraw     time.Duration `mapstructure:"vipWithdraw" yaml:"vipWithdraw"`
}

// defaultHoldTime is BGP's usual hold time (GoBGP's, FRR's and Cilium's
// default), for peers whose hold time is not configured.
const defaultHoldTime = 90 * time.Second

// ConvergenceBudgets returns the configured budgets, with the defaults for
// those not set: announcements convergence.DefaultAnnounceBudget,
// withdrawals the longest hold time of the neighbors (90s when none is set)
// plus the graceful-restart window when graceful restart is enabled.
func (c *Config) ConvergenceBudgets() convergence.Budgets {
	hold := time.Duration(0)
	for _, n := range c.BGP.Neighbors {
		hold = max(hold, n.HoldTime)
	}
	for _, d := range c.BGP.DynamicNeighbors {
		hold = max(hold, d.HoldTime)
	}
	restart := time.Duration(0)
	if c.BGP.GracefulRestart.Enabled {
		restart = c.BGP.GracefulRestart.Window
	}
	def := convergence.DefaultBudgets(cmp.Or(hold, defaultHoldTime), restart)
	v := c.Validation.Convergence
	return convergence.Budgets{PodCIDRAnnounce: cmp.Or(v.PodCIDRAnnounce, def.PodCIDRAnnounce),
		PodCIDRWithdraw: cmp.Or(v.PodCIDRWithdraw, def.PodCIDRWithdraw),
		VIPAnnounce:     cmp.Or(v.VIPAnnounce, def.VIPAnnounce), VIPWithdraw: cmp.Or(v.VIPWithdraw, def.VIPWithdraw)}
}
