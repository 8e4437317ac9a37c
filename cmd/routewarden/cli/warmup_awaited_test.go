package cli

import (
	"github.com/routewarden/routewarden/bgp"
	"github.com/routewarden/routewarden/monitor"
)

// The loop's Warmup is the collector: it must say whom warm-up waits for, or
// the status page cannot name the peers.
var _ monitor.AwaitingWarmup = (*bgp.Collector)(nil)
