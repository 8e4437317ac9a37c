package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/routewarden/routewarden/monitor"
)

// ConvergenceLine returns a function that describes, on each call, the
// route changes the loop timed since the previous call and those still
// pending: the demo's convergence line after each step.
func ConvergenceLine(get func() monitor.Convergence) func() string {
	seen := 0
	var last time.Time
	return func() string {
		c := get()
		var parts []string
		for _, d := range c.Completed {
			if !d.At.After(last) && seen > 0 {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %s of %s by %s took %s", d.Key.Kind, d.Direction, d.Key.Prefix,
				d.Key.Node, d.Duration.Round(time.Millisecond)))
			last = d.At
		}
		seen += len(parts)
		for _, p := range c.Pending {
			parts = append(parts, fmt.Sprintf("%s %s of %s by %s still pending", p.Key.Kind, p.Direction,
				p.Key.Prefix, p.Key.Node))
		}
		if len(parts) == 0 {
			return "nothing to time: no Node, CiliumNode or Service change in this step asked a route to move"
		}
		return strings.Join(parts, "; ")
	}
}
