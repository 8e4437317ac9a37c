package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// showsEverything is, per dump format, the command whose output carries
// every path attribute routewarden judges.
var showsEverything = map[string]string{
	"frr":   "vtysh -c 'show bgp ipv4 unicast json detail' (or ipv6; per prefix: show bgp ipv4 unicast PREFIX json)",
	"gobgp": "gobgp global rib -j",
	"bird":  "birdc show route all",
	"mrt":   "an MRT TABLE_DUMP_V2 file (gobgpd mrt-dump, FRR dump bgp routes-mrt, BIRD protocol mrt)",
}

// unjudgedNotes says once per dump format which attributes the rules left
// unjudged because its dumps do not carry them (Attributes.Unseen), and the
// command that would show them.
func unjudgedNotes(c *validator.Cluster, set routeSet) []string {
	judged := c.Judged()
	var notes []string
	for _, format := range slices.Sorted(maps.Keys(set.unseen)) {
		u := set.unseen[format] & judged
		if u == 0 {
			continue
		}
		cmd := showsEverything[format]
		if cmd == "" {
			cmd = strings.Join(slices.Sorted(maps.Values(showsEverything)), "; ")
		}
		notes = append(notes, fmt.Sprintf("not judged: %s, which the %s dumps do not carry; %s shows them.",
			strings.Join(u.Names(), ", "), format, cmd))
	}
	return notes
}
