package lint

import (
	"fmt"
	"time"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/validator"
)

// checkGracefulRestart: a node's restart time longer than routewarden's grace
// window makes every agent restart look like missing routes.
func checkGracefulRestart(in Input, r *reporter) {
	check := func(where, object, field string, gr *cilium.BGPGracefulRestart) {
		if !gr.On() {
			return
		}
		switch {
		case !in.Collector.GracefulRestart:
			r.add(validator.SeverityWarning, where, object, field,
				"graceful restart is enabled (restart time %s) but not on routewarden (bgp.gracefulRestart.enabled): "+
					"every agent restart drops the node's routes and may raise missing-route alerts", gr.RestartTime())
		case in.Collector.GraceWindow > 0 && gr.RestartTime() > in.Collector.GraceWindow:
			r.add(validator.SeverityWarning, where, object, field,
				"restart time %s is longer than routewarden's grace window %s (bgp.gracefulRestart.window): "+
					"routewarden will alert while a restarting node is still within its restart time",
				gr.RestartTime(), in.Collector.GraceWindow.Round(time.Second))
		}
	}
	for _, pc := range in.Cilium.BGPPeerCfgs {
		check(where(pc), pcObject(pc), "spec.gracefulRestart", pc.Object.Spec.GracefulRestart)
	}
	for _, pp := range in.Cilium.BGPPeeringPols {
		for i, vr := range pp.Object.Spec.VirtualRouters {
			for j, n := range vr.Neighbors {
				if in.isCollector(n.PeerAddress.Addr()) {
					check(where(pp), ppObject(pp), fmt.Sprintf("spec.virtualRouters[%d].neighbors[%d].gracefulRestart", i, j),
						n.GracefulRestart)
				}
			}
		}
	}
}
