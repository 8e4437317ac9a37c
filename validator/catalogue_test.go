package validator

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/golden"
	"github.com/routewarden/routewarden/internal/testdoc"
)

// TestCatalogueCoversEveryRule: every rule that judges a snapshot has one
// complete catalogue entry, judging in run and check; an entry without a
// Rule (slow-convergence, which times changes) judges in run only.
func TestCatalogueCoversEveryRule(t *testing.T) {
	checked := map[RuleID]bool{}
	for _, r := range Rules() {
		checked[r.ID()] = true
		s, ok := Spec(r.ID())
		if !ok {
			t.Errorf("rule %s has no catalogue entry (validator/catalogue.go)", r.ID())
			continue
		}
		if !s.RunsIn(ModeRun) || !s.RunsIn(ModeCheck) {
			t.Errorf("rule %s judges snapshots, in run and check alike; its entry says %v", r.ID(), s.Modes)
		}
	}
	ids, alerts := map[RuleID]bool{}, map[string]bool{}
	for _, s := range Catalogue() {
		if ids[s.ID] || alerts[s.Alert] {
			t.Errorf("%s: its ID or alert name %q is another entry's", s.ID, s.Alert)
		}
		ids[s.ID], alerts[s.Alert] = true, true
		if !strings.HasPrefix(s.Alert, "BGP") || s.Severity == 0 || s.Hint == "" || s.Reads == "" || len(s.Modes) == 0 {
			t.Errorf("%s: incomplete entry %+v", s.ID, s)
		}
		if !strings.HasSuffix(s.Summary, ".") || strings.Count(s.Summary, ". ") > 0 {
			t.Errorf("%s: the summary is to be one sentence: %q", s.ID, s.Summary)
		}
		if !checked[s.ID] && !slices.Equal(s.Modes, []Mode{ModeRun}) {
			t.Errorf("%s: no Rule judges it in a snapshot, so check cannot: its modes are %v", s.ID, s.Modes)
		}
	}
}

func TestRunbookURL(t *testing.T) {
	for base, want := range map[string]string{"": "", "https://wiki.example/bgp": "https://wiki.example/bgp#stale-route",
		"https://github.com/o/r/blob/main/docs/rules/": "https://github.com/o/r/blob/main/docs/rules/stale-route.md"} {
		if got := RunbookURL(base, "stale-route"); got != want {
			t.Errorf("RunbookURL(%q) = %q, want %q", base, got, want)
		}
	}
}

// ruleTable is the README's table of rules: one sentence a rule, linking its runbook.
func ruleTable() string {
	var b strings.Builder
	b.WriteString("| rule | fires when | severity | alert |\n|---|---|---|---|\n")
	for _, s := range Catalogue() {
		summary := s.Summary
		if !s.RunsIn(ModeCheck) {
			summary = strings.TrimSuffix(summary, ".") + " (`run` only)."
		}
		fmt.Fprintf(&b, "| [`%s`](%s) | %s | %s | `%s` |\n", s.ID, s.Runbook(), summary, s.Severity, s.Alert)
	}
	return b.String()
}

// TestReadmeRuleTable: the README's rule table is the catalogue's
// (go test ./validator -run TestReadmeRuleTable -update rewrites it).
func TestReadmeRuleTable(t *testing.T) {
	const path = "../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := testdoc.ReplaceBetween(readme, "rules", ruleTable())
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	golden.Assert(t, path, want)
}
