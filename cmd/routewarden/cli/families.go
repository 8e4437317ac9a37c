package cli

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// familyNames are --families' values.
var familyNames = []string{"ipv4", "ipv6"}

func familyOf(p netip.Prefix) string {
	if p.Addr().Is4() {
		return "ipv4"
	}
	return "ipv6"
}

// parseFamilies parses --families (comma-separated); empty means inferred
// from the dumps, returned as nil.
func parseFamilies(s string) (map[string]bool, error) {
	if s == "" {
		return nil, nil
	}
	out := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if err := choice("--families", f, familyNames); err != nil {
			return nil, err
		}
		out[f] = true
	}
	return out, nil
}

// routeSet is the routes of every dump, with what check needs to tell which
// families the dumps cover.
type routeSet struct {
	routes   []validator.Route
	formats  []string
	families map[string]string            // family → the first dump holding a route of it
	unseen   map[string]validator.AttrSet // format → the attributes its dumps cannot show
}

func (s *routeSet) add(name, format string, rs []validator.Route) {
	if s.families == nil {
		s.families = map[string]string{}
	}
	if !slices.Contains(s.formats, format) {
		s.formats = append(s.formats, format)
	}
	if s.unseen == nil {
		s.unseen = map[string]validator.AttrSet{}
	}
	for _, r := range rs {
		s.unseen[format] |= r.Attrs().Unseen
		if fam := familyOf(r.Prefix); s.families[fam] == "" {
			s.families[fam] = name
		}
	}
	s.routes = append(s.routes, rs...)
}

// covered is the families the dumps cover: --families when given (a dump
// holding another family contradicts it: an error), else those they hold.
func (s *routeSet) covered(flag map[string]bool) (map[string]bool, error) {
	if flag == nil {
		out := map[string]bool{}
		for fam := range s.families {
			out[fam] = true
		}
		return out, nil
	}
	for _, fam := range familyNames {
		if name := s.families[fam]; name != "" && !flag[fam] {
			return nil, fmt.Errorf("--families %s, but %s holds %s routes: add %s to --families",
				strings.Join(slices.Sorted(maps.Keys(flag)), ","), name, label(fam), fam)
		}
	}
	return flag, nil
}

// absenceRules are the rules that report what a route dump does not hold.
var absenceRules = []validator.RuleID{validator.RuleMissingRoute, validator.RuleMissingVIP}

// scopeToFamilies leaves out the findings about routes of a family no dump
// covers (one per node and VIP, otherwise) and says so once per family.
func scopeToFamilies(res validator.Result, covered map[string]bool, formats []string) (validator.Result, []string) {
	dropped := map[string]int{}
	kept := res.Findings[:0:0]
	for _, f := range res.Findings {
		if fam := familyOf(f.Prefix); slices.Contains(absenceRules, f.Rule) && !covered[fam] {
			dropped[fam]++
			res.Summary.Findings--
			res.Summary.BySeverity[f.Severity.String()]--
			res.Summary.ByRule[string(f.Rule)]--
			continue
		}
		kept = append(kept, f)
	}
	res.Findings = kept
	for _, m := range []map[string]int{res.Summary.BySeverity, res.Summary.ByRule} {
		for k, n := range m {
			if n == 0 {
				delete(m, k)
			}
		}
	}
	want := slices.Sorted(maps.Keys(covered))
	for _, fam := range familyNames {
		if dropped[fam] > 0 && !covered[fam] {
			want = append(want, fam)
		}
	}
	slices.Sort(want)
	var notes []string
	for _, fam := range familyNames {
		if n := dropped[fam]; n > 0 {
			notes = append(notes, fmt.Sprintf("the route dumps hold no %s route, but the cluster allocates %s "+
				"CIDRs: %d finding(s) that they are missing were left out. Dump %s too (%s), or say "+
				"--families %s if the router should have %s routes.", label(fam), label(fam), n, label(fam),
				dumpCommands(fam, formats), strings.Join(want, ","), label(fam)))
		}
	}
	return res, notes
}

// dumpCommands names the commands that dump a family, for the formats read.
func dumpCommands(fam string, formats []string) string {
	cmds := map[string]string{
		"frr":   fmt.Sprintf("vtysh -c 'show bgp %s unicast json'", fam),
		"gobgp": fmt.Sprintf("gobgp global rib -a %s -j", fam),
		"bird":  "birdc show route all table master" + strings.TrimPrefix(fam, "ipv"),
		"mrt":   "an MRT table dump of the router's " + label(fam) + " table",
	}
	var out []string
	for _, f := range formats {
		if c, ok := cmds[f]; ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = []string{cmds["frr"], cmds["gobgp"]}
	}
	return strings.Join(out, ", or ")
}

func label(fam string) string { return strings.Replace(fam, "ipv", "IPv", 1) }
