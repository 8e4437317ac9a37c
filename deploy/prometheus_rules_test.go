package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/testam"
)

// promRules renders the PrometheusRule (default release) and writes its groups as a Prometheus rules file.
func promRules(t testing.TB, dir string) []string {
	t.Helper()
	pr := mustFind(t, parseObjects(t, mustRender(t, "", "--set", "prometheusRule.enabled=true")), "PrometheusRule", "")
	groups := map[string]any{"groups": dig(pr, "spec", "groups")}
	b, err := yaml.Marshal(groups)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, g := range asList(dig(pr, "spec", "groups")) {
		for _, r := range asList(dig(g, "rules")) {
			exprs = append(exprs, asString(dig(r, "expr")))
		}
	}
	return exprs
}

// dashboardExprs returns the dashboard's queries with Grafana's variables replaced for PromQL.
func dashboardExprs(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir, "files", "dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	r := strings.NewReplacer("$__rate_interval", "5m", "$job", ".+")
	var out []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("dashboard panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, r.Replace(tg.Expr))
		}
	}
	return out
}

var metricName = regexp.MustCompile(`\b(routewarden_[a-z_]+)`)

// usedMetrics returns the routewarden metric families an expression uses (histogram series → family).
func usedMetrics(exprs []string) map[string]bool {
	out := map[string]bool{}
	for _, e := range exprs {
		for _, m := range metricName.FindAllStringSubmatch(e, -1) {
			name := m[1]
			for _, suf := range []string{"_bucket", "_sum", "_count"} {
				if strings.HasPrefix(name, "routewarden_validation_duration_seconds") ||
					strings.HasPrefix(name, "routewarden_convergence_seconds") {
					name = strings.TrimSuffix(name, suf)
				}
			}
			out[name] = true
		}
	}
	return out
}

// TestPrometheusRules: promtool accepts the PrometheusRule's groups, its unit tests (testdata/prometheus) show
// every alert firing on routewarden's series and staying quiet when healthy, and the rules and the dashboard
// only use metrics routewarden exports.
func TestPrometheusRules(t *testing.T) {
	promtool := testam.RequireBinary(t, "PROMTOOL", "/usr/bin/promtool", "prometheus")
	dir := t.TempDir()
	exprs := promRules(t, dir)
	if out, err := exec.Command(promtool, "check", "rules", filepath.Join(dir, "rules.yaml")).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	tests, err := os.ReadFile(filepath.Join(repoDir, "deploy", "testdata", "prometheus", "routewarden_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testFile := filepath.Join(dir, "routewarden_test.yaml")
	if err := os.WriteFile(testFile, tests, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "test", "rules", testFile).CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
	// Every alert has a test where it fires.
	var ut struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	if err := yaml.Unmarshal(tests, &ut); err != nil {
		t.Fatal(err)
	}
	fires := map[string]bool{}
	for _, tc := range ut.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			}
		}
	}
	rules, _ := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	for _, m := range regexp.MustCompile(`alert: (\S+)`).FindAllStringSubmatch(string(rules), -1) {
		if !fires[m[1]] {
			t.Errorf("no unit test shows %s firing", m[1])
		}
	}

	// The dashboard's queries are valid PromQL: promtool checks them as recording rules.
	dash := dashboardExprs(t)
	var rec strings.Builder
	rec.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for i, e := range dash {
		fmt.Fprintf(&rec, "      - record: dashboard_query_%d\n        expr: %q\n", i, e)
	}
	recFile := writeTemp(t, "dashboard-rules.yaml", rec.String())
	if out, err := exec.Command(promtool, "check", "rules", recFile).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules (dashboard queries): %v\n%s", err, out)
	}
	// prometheusRule.disabled leaves alerts out.
	pr := mustFind(t, parseObjects(t, mustRender(t, "", "--set", "prometheusRule.enabled=true",
		"--set", "prometheusRule.disabled={RoutewardenBGPDecodeErrors,RoutewardenReplicaDown}")), "PrometheusRule", "")
	if n := len(asList(dig(pr, "spec", "groups", "0", "rules"))); n != len(exprs)-2 {
		t.Errorf("%d rules with two disabled, want %d", n, len(exprs)-2)
	}

	used := usedMetrics(append(exprs, dash...))
	for name := range used {
		if !slices.Contains(exportedMetrics, name) {
			t.Errorf("%s is not a metric routewarden exports", name)
		}
	}
	for _, want := range []string{"routewarden_bgp_peer_up", "routewarden_bgp_peer_routes", "routewarden_findings_firing",
		"routewarden_validation_duration_seconds", "routewarden_alert_deliveries_total",
		"routewarden_convergence_seconds", "routewarden_convergence_pending"} {
		if !usedMetrics(dash)[want] {
			t.Errorf("the dashboard has no panel with %s", want)
		}
	}
}

// ---------------------------------------------------------------------------------------------------------
// The real API server
