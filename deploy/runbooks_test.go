package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/routewarden/routewarden/alert"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/validator"
)

// repoURL is where the runbook links point: this repository's files on its public home (Chart.yaml's home).
const repoURL = "https://github.com/routewarden/routewarden/blob/main/"

// followLink resolves a link to a file of this repository and checks that the file, and the section its
// fragment names, exist.
func followLink(t *testing.T, from, link string) {
	t.Helper()
	path, frag, _ := strings.Cut(link, "#")
	switch {
	case strings.HasPrefix(path, repoURL):
		path = filepath.Join(repoDir, strings.TrimPrefix(path, repoURL))
	case strings.Contains(path, "://") || strings.HasPrefix(link, "mailto:"):
		t.Errorf("%s: %s leads out of the repository", from, link)
		return
	case path == "":
		path = from
	default:
		path = filepath.Join(filepath.Dir(from), path)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s links %s: %v", rel(from), link, err)
		return
	}
	if frag != "" && strings.HasSuffix(path, ".md") && !hasSection(string(b), frag) {
		t.Errorf("%s links %s: %s has no section #%s", rel(from), link, rel(path), frag)
	}
}

func rel(path string) string {
	if r, err := filepath.Rel(repoDir, path); err == nil {
		return r
	}
	return path
}

var heading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)

// hasSection reports whether a Markdown document has a heading whose anchor (as GitHub makes it) is frag.
func hasSection(doc, frag string) bool {
	for _, m := range heading.FindAllStringSubmatch(doc, -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		if b.String() == frag {
			return true
		}
	}
	return false
}

// TestRunbookLinksResolve: with the default alerting.runbookBase, every rule's alert and finding (and the
// inventory alert) link to a runbook file that exists, and so does every alert of the chart's PrometheusRule.
func TestRunbookLinksResolve(t *testing.T) {
	cfg, problems, err := config.Load("")
	if err != nil || len(problems) > 0 {
		t.Fatalf("defaults: %v %v", err, problems)
	}
	opts := alert.FindingOptions{RunbookBase: cfg.Alerting.RunbookBase}
	for _, r := range validator.Catalogue() {
		a := alert.FromFinding(validator.Finding{Rule: r.ID, Severity: r.Severity, Message: "m"}, opts)
		if u := a.Annotations["runbook_url"]; u != repoURL+r.Runbook() {
			t.Errorf("%s: runbook_url %q, want %q", r.ID, u, repoURL+r.Runbook())
		}
		followLink(t, "alert "+a.Labels["alertname"], a.Annotations["runbook_url"])
	}
	inv := alert.InventoryUnavailable("test", time.Time{}, opts)
	followLink(t, "alert "+alert.AlertInventoryUnavailable, inv.Annotations["runbook_url"])

	if _, err := os.Stat(os.Getenv("HELM")); os.Getenv("HELM") == "" || err != nil {
		t.Skip("no helm (HELM, from hack/test-deps.sh): the PrometheusRule's links are not checked")
	}
	pr := mustFind(t, parseObjects(t, mustRender(t, "", "--set", "prometheusRule.enabled=true")), "PrometheusRule", "")
	n := 0
	for _, g := range asList(dig(pr, "spec", "groups")) {
		for _, r := range asList(dig(g, "rules")) {
			if name := asString(dig(r, "alert")); name != "" {
				n++
				u := asString(dig(r, "annotations", "runbook_url"))
				if u == "" {
					t.Errorf("PrometheusRule alert %s has no runbook_url", name)
					continue
				}
				followLink(t, "PrometheusRule alert "+name, u)
			}
		}
	}
	if n == 0 {
		t.Error("the PrometheusRule has no alert")
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinksResolve: every relative link of README.md and docs/ leads to a file (and section) that exists.
func TestDocsLinksResolve(t *testing.T) {
	docs, _ := filepath.Glob(filepath.Join(repoDir, "docs", "*.md"))
	rules, _ := filepath.Glob(filepath.Join(repoDir, "docs", "rules", "*.md"))
	for _, path := range append(append([]string{filepath.Join(repoDir, "README.md")}, docs...), rules...) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			if link := m[1]; !strings.Contains(link, "://") {
				followLink(t, path, link)
			}
		}
	}
}
