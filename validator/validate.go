package validator

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Result is the outcome of one validation.
type Result struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
}

// Summary counts what was validated and found.
type Summary struct {
	Nodes       int `json:"nodes"`
	CiliumNodes int `json:"ciliumNodes"`
	Routes      int `json:"routes"`
	Prefixes    int `json:"prefixes"`
	// NetworkRoutes are the routes of the network, not the cluster's
	// (scope.go): counted, never judged.
	NetworkRoutes  int            `json:"networkRoutes,omitempty"`
	IPAMMode       IPAMMode       `json:"ipamMode"`
	IPAMModeSource string         `json:"ipamModeSource"`
	Findings       int            `json:"findings"`
	BySeverity     map[string]int `json:"bySeverity"`
	ByRule         map[string]int `json:"byRule"`
}

// Validate checks routes, and what the ToRs showed of their policy (pv, the
// zero PolicyView when nothing), against the cluster with every enabled rule
// and returns the findings in canonical order.
func Validate(c *Cluster, routes []Route, pv PolicyView, opts Options) Result {
	return ValidateSnapshot(NewSnapshot(c, routes, pv, opts))
}

// ValidateSnapshot runs every enabled rule over a prepared snapshot. Rules only
// read the snapshot: on a large one they run on all CPUs, and their findings
// are joined in rule order before sorting, so the result does not depend on it.
func ValidateSnapshot(s *Snapshot) Result {
	var rules []Rule
	for _, r := range Rules() {
		if !s.Options.Rules[r.ID()].Disabled {
			rules = append(rules, r)
		}
	}
	found := make([][]Finding, len(rules))
	check := func(k int) {
		r := rules[k]
		id, sev := r.ID(), s.Options.Severity(r.ID())
		r.Check(s, func(f Finding) {
			f.Rule, f.Severity = id, sev
			found[k] = append(found[k], f)
		})
	}
	// An Engine's snapshot sorts its route lists when read: it stays on one goroutine.
	runRules(len(rules), parallel(len(s.Routes)) && s.upd == nil, check)
	findings := slices.Concat(found...)
	SortFindings(findings)
	return Result{Findings: findings, Summary: summarize(s, findings)}
}

// runRules calls check for every rule index in [0, n), spread over the CPUs
// when par is set; check must only write its own index's results.
func runRules(n int, par bool, check func(k int)) {
	if !par {
		for k := range n {
			check(k)
		}
		return
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for k := int(next.Add(1)) - 1; k < n; k = int(next.Add(1)) - 1 {
				check(k)
			}
		})
	}
	wg.Wait()
}

// parallel reports whether work over n routes is worth spreading over CPUs.
func parallel(n int) bool { return n >= 20_000 && runtime.GOMAXPROCS(0) > 1 }

func summarize(s *Snapshot, findings []Finding) Summary {
	sum := Summary{
		Nodes: len(s.Cluster.Nodes), CiliumNodes: len(s.Cluster.CiliumNodes), Routes: len(s.Routes),
		Prefixes: s.byPrefix.Len(), NetworkRoutes: s.networkRoutes(), IPAMMode: s.Cluster.IPAM.Mode, IPAMModeSource: s.Cluster.IPAM.ModeSource,
		Findings: len(findings), BySeverity: map[string]int{}, ByRule: map[string]int{},
	}
	for _, f := range findings {
		sum.BySeverity[f.Severity.String()]++
		sum.ByRule[string(f.Rule)]++
	}
	return sum
}

// Worst returns the highest severity among findings, 0 when there are none.
func Worst(fs []Finding) Severity {
	var worst Severity
	for _, f := range fs {
		worst = max(worst, f.Severity)
	}
	return worst
}
