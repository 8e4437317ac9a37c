package httpapi

import (
	"net/http"
	"slices"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

type findingsResponse struct {
	At        string `json:"at"`
	Now       string `json:"now"` // when answered: clients compute ages from it, not their clock
	WarmingUp bool   `json:"warmingUp"`
	Frozen    bool   `json:"frozen"`
	// FrozenSince is when the inventory went away, while frozen ("" otherwise).
	FrozenSince string            `json:"frozenSince"`
	Warmup      warmupJSON        `json:"warmup"`
	Inventory   inventoryJSON     `json:"inventory"`
	Summary     validator.Summary `json:"summary"`
	Findings    []findingJSON     `json:"findings"`
	Total       int               `json:"total"` // findings matching the filters, on every page
	Continue    string            `json:"continue"`
}

type inventoryJSON struct {
	Synced    bool   `json:"synced"`
	Available bool   `json:"available"`
	Reason    string `json:"reason"`
	Since     string `json:"since"`
}

type transitionsResponse struct {
	Now         string           `json:"now"`
	Transitions []transitionJSON `json:"transitions"`
	Total       int              `json:"total"`
	Continue    string           `json:"continue"`
}

func ruleNames() []string { return validator.RuleIDs() }

func severityNames() []string { return []string{"info", "warning", "critical"} }

var findingParams = []param{{name: "rule", valid: ruleNames}, {name: "severity", valid: severityNames},
	{name: "node"}, {name: "prefix", check: checkPrefix}, {name: "peer", check: checkAddr},
	{name: "firing", check: checkBool}}

var transitionParams = []param{{name: "kind", valid: func() []string { return []string{"fired", "resolved"} }},
	{name: "rule", valid: ruleNames}, {name: "node"}, {name: "prefix", check: checkPrefix}}

// matchFinding applies the findings filters (validated before).
func matchFinding(q query, f validator.Finding) bool {
	return (q.Get("rule") == "" || string(f.Rule) == q.Get("rule")) &&
		(q.Get("severity") == "" || f.Severity.String() == q.Get("severity")) &&
		(q.Get("node") == "" || f.Node == q.Get("node")) &&
		(q.Get("prefix") == "" || f.Prefix.String() == mustPrefix(q.Get("prefix"))) &&
		(q.Get("peer") == "" || addrText(f.Peer) == mustAddr(q.Get("peer")))
}

// findings lists tracked findings, worst first, with the validation's state.
func (s *Server) findings(w http.ResponseWriter, q query) {
	st := s.src.State()
	var sel []monitor.Tracked
	for _, f := range st.Findings {
		if matchFinding(q, f.Finding) && (q.Get("firing") == "" || f.Firing == (q.Get("firing") == "true")) {
			sel = append(sel, f)
		}
	}
	pg, next, err := page(sel, q, func(t monitor.Tracked) string { return t.Key() })
	if err != nil {
		writeError(w, err)
		return
	}
	out := findingsResponse{At: timeText(st.At), Now: timeText(s.now()), WarmingUp: st.WarmingUp, Frozen: st.Frozen,
		Inventory: inventoryJSON{Synced: st.Inventory.Synced, Available: st.Inventory.Available,
			Reason: st.Inventory.Reason, Since: timeText(st.Inventory.Since)},
		Summary: summaryOut(st.Summary), Findings: make([]findingJSON, 0, len(pg)), Total: len(sel), Continue: next,
		Warmup: warmupOut(st)}
	_, out.FrozenSince = judgement(st)
	for _, f := range pg {
		out.Findings = append(out.Findings, s.finding(f))
	}
	writeJSON(w, out)
}

// transitions lists the last findings that fired or resolved, newest first.
func (s *Server) transitions(w http.ResponseWriter, q query) {
	var sel []monitor.Transition
	if s.src.Transitions != nil {
		for _, t := range slices.Backward(s.src.Transitions()) {
			if (q.Get("kind") == "" || string(t.Kind) == q.Get("kind")) && matchFinding(q, t.Finding.Finding) {
				sel = append(sel, t)
			}
		}
	}
	pg, next, err := page(sel, q, func(t monitor.Transition) string {
		return string(t.Kind) + "|" + timeText(t.At) + "|" + t.Finding.Key()
	})
	if err != nil {
		writeError(w, err)
		return
	}
	out := transitionsResponse{Now: timeText(s.now()), Transitions: make([]transitionJSON, 0, len(pg)),
		Total: len(sel), Continue: next}
	for _, t := range pg {
		out.Transitions = append(out.Transitions, transitionJSON{Kind: string(t.Kind), At: timeText(t.At),
			Finding: s.finding(t.Finding)})
	}
	writeJSON(w, out)
}

// summaryOut is the validation's summary with its counts as {} rather than null when empty.
func summaryOut(s validator.Summary) validator.Summary {
	if s.BySeverity == nil {
		s.BySeverity = map[string]int{}
	}
	if s.ByRule == nil {
		s.ByRule = map[string]int{}
	}
	return s
}
