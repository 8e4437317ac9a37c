package validator

// Result is the outcome of one validation.
type Result struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
}

// Summary counts what was validated and found.
type Summary struct {
	Nodes          int            `json:"nodes"`
	CiliumNodes    int            `json:"ciliumNodes"`
	Routes         int            `json:"routes"`
	Prefixes       int            `json:"prefixes"`
	IPAMMode       IPAMMode       `json:"ipamMode"`
	IPAMModeSource string         `json:"ipamModeSource"`
	Findings       int            `json:"findings"`
	BySeverity     map[string]int `json:"bySeverity"`
	ByRule         map[string]int `json:"byRule"`
}

// Validate checks routes against the cluster with every enabled rule and
// returns the findings in canonical order.
func Validate(c *Cluster, routes []Route, opts Options) Result {
	return ValidateSnapshot(NewSnapshot(c, routes, opts))
}

// ValidateSnapshot runs every enabled rule over a prepared snapshot.
func ValidateSnapshot(s *Snapshot) Result {
	var findings []Finding
	for _, r := range Rules() {
		if s.Options.Rules[r.ID()].Disabled {
			continue
		}
		sev := s.Options.severity(r)
		r.Check(s, func(f Finding) {
			f.Rule, f.Severity = r.ID(), sev
			findings = append(findings, f)
		})
	}
	SortFindings(findings)
	return Result{Findings: findings, Summary: summarize(s, findings)}
}

func summarize(s *Snapshot, findings []Finding) Summary {
	sum := Summary{
		Nodes: len(s.Cluster.Nodes), CiliumNodes: len(s.Cluster.CiliumNodes), Routes: len(s.Routes),
		Prefixes: len(s.byPrefix), IPAMMode: s.Cluster.IPAM.Mode, IPAMModeSource: s.Cluster.IPAM.ModeSource,
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
