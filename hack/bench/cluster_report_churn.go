package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// writeClusterRoutes is the part of the report on the ToR's routes, the
// findings at steady state and the churn.
func writeClusterRoutes(b *strings.Builder, c *ClusterResult) {
	var rows []ClusterProc
	for _, p := range c.Procs {
		if p.PathsSent > 0 || p.Churn != nil {
			rows = append(rows, p)
		}
	}
	if len(rows) == 0 {
		return
	}
	o := c.Options
	fmt.Fprintf(b, "\nThe ToR (hack/bench/cluster_tor.go) has one eBGP session with each routewarden (a static neighbor, "+
		"ADD-PATH negotiated) and sends the cluster's routes once routewarden listens: every node's IPv4 and IPv6 pod "+
		"CIDR with the node's address as next hop, and every VIP from each of its %d announcing nodes (the nodes of "+
		"its endpoints, externalTrafficPolicy Local), one path ID each; warm-up ends at its End-of-RIB, hold-down is 0. "+
		"After the steady window, **churn for %s** at **%s**; each node delete times the delete call to its "+
		"stale-route finding firing in `GET /api/v1/findings` (polled every 5 ms), and the node is then created "+
		"again.\n\n", announcersPerVIP, o.ChurnFor, churnRateText(o.Churn))
	b.WriteString("| watcher | paths sent | routes in the verdict | findings at steady state | churn done | " +
		"Node delete -> alert p50 / p99 / max (n) |\n|---|---|---|---|---|---|\n")
	for _, p := range rows {
		findings := "–"
		if p.Findings != nil {
			findings = fmt.Sprintf("%d%s", *p.Findings, byRuleText(p.ByRule))
		}
		done, alert := "–", "–"
		if ch := p.Churn; ch != nil {
			done = fmt.Sprintf("%d endpoint flips, %d/%d node deletes/adds, %d/%d Service creates/deletes in %.0f s",
				ch.EndpointFlips, ch.NodeDeletes, ch.NodeAdds, ch.ServiceCreates, ch.ServiceDeletes, ch.Seconds)
			if ch.Err != "" {
				done += " (error: " + ch.Err + ")"
			}
			if len(ch.AlertMs) > 0 {
				alert = fmt.Sprintf("%.0f / %.0f / %.0f ms (%d", percentile(ch.AlertMs, 50), percentile(ch.AlertMs, 99),
					ch.AlertMs[len(ch.AlertMs)-1], len(ch.AlertMs))
				if ch.Missed > 0 {
					alert += fmt.Sprintf(", %d missed", ch.Missed)
				}
				alert += ")"
			}
		}
		fmt.Fprintf(b, "| %s | %d | %d | %s | %s | %s |\n", p.Name, p.PathsSent, p.PathsHeld, findings, done, alert)
	}
}

func churnRateText(r ChurnRates) string {
	return fmt.Sprintf("%g endpoint flips, %g node deletes (each node created again) and %g Service creates "+
		"(each deleted again) a second",
		r.EndpointFlips, r.NodeCycles, r.ServiceCycles)
}

func byRuleText(m map[string]int) string {
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(m)) {
		if m[r] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, m[r]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
