package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/golden"
)

const scenarioDir = "../../../testdata/scenarios"

// routeSources are the dumps hack/gen-route-dumps.sh takes from each collector;
// every one of them must give a scenario the same findings.
var routeSources = []struct {
	name  string
	files []string
}{
	{"gobgp", []string{"routes.gobgp.json", "routes.gobgp-v6.json"}},
	{"frr", []string{"routes.frr.json", "routes.frr-v6.json"}},
	{"bird", []string{"routes.bird.txt"}},
	{"mrt-gobgpd", []string{"routes.mrt"}},
	{"mrt-bird", []string{"routes.bird.mrt"}},
	{"mrt-frr", []string{"routes.frr.mrt"}},
}

type checkOutput struct {
	Findings []map[string]any `json:"findings"`
	Summary  map[string]any   `json:"summary"`
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Execute(context.Background(), append(args, "--log-format", "json", "--log-level", "warn"),
		strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func existing(dir string, names ...string) []string {
	var out []string
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

func clusterArgs(dir string) []string {
	var args []string
	for _, f := range existing(dir, "cluster.json", "cilium-config.yaml") {
		args = append(args, "--cluster", f)
	}
	return args
}

// TestScenarios runs check over every scenario and every route format: the
// findings are the scenario's expected.json, whichever daemon dumped the routes.
func TestScenarios(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(scenarioDir, "*", "cluster.json"))
	if len(dirs) < 8 {
		t.Fatalf("found %d scenarios with cluster.json, want at least 8", len(dirs))
	}
	formatsSeen := map[string]bool{}
	for _, c := range dirs {
		dir := filepath.Dir(c)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var want string
			for _, src := range routeSources {
				files := existing(dir, src.files...)
				if len(files) == 0 {
					continue
				}
				args := append([]string{"check", "-o", "json"}, clusterArgs(dir)...)
				for _, f := range files {
					args = append(args, "--routes", f)
				}
				code, stdout, stderr := runCLI(t, args...)
				var out checkOutput
				if err := json.Unmarshal([]byte(stdout), &out); err != nil {
					t.Fatalf("%s: exit %d, output is not JSON: %v\n%s\n%s", src.name, code, err, stdout, stderr)
				}
				wantCode := ExitFindings
				if len(out.Findings) == 0 {
					wantCode = ExitOK
				}
				if code != wantCode {
					t.Errorf("%s: exit code %d, want %d", src.name, code, wantCode)
				}
				findings, _ := json.MarshalIndent(out.Findings, "", "  ")
				if want == "" {
					want = string(findings)
					golden.Assert(t, filepath.Join(dir, "expected.json"), append(findings, '\n'))
				} else if string(findings) != want {
					t.Errorf("%s gives other findings than gobgp:\n%s\nwant:\n%s", src.name, findings, want)
				}
				formatsSeen[strings.SplitN(src.name, "-", 2)[0]] = true
			}
			if want == "" {
				t.Fatal("no route dumps in this scenario")
			}
		})
	}
	for _, f := range []string{"gobgp", "frr", "bird", "mrt"} {
		if !formatsSeen[f] {
			t.Errorf("no scenario exercises the %s format", f)
		}
	}
}

// TestCheckTableGolden pins the human outputs of every scenario: the
// explanation (expected.txt) and the table at 100 columns (expected.table.txt).
func TestCheckTableGolden(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	dirs, _ := filepath.Glob(filepath.Join(scenarioDir, "*", "cluster.json"))
	for _, c := range dirs {
		dir := filepath.Dir(c)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			for output, file := range map[string]string{"explain": "expected.txt", "table": "expected.table.txt"} {
				args := append([]string{"check", "-o", output}, clusterArgs(dir)...)
				for _, f := range existing(dir, "routes.gobgp.json", "routes.gobgp-v6.json") {
					args = append(args, "--routes", f)
				}
				_, stdout, stderr := runCLI(t, args...)
				if stderr != "" {
					t.Errorf("unexpected log output: %s", stderr)
				}
				golden.Assert(t, filepath.Join(dir, file), []byte(stdout))
			}
		})
	}
}
