package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestUnreadableRoutesAreUsageErrors: a directory or a missing file given as
// --routes is exit 2 with the OS's reason, never an empty dump's findings.
func TestUnreadableRoutesAreUsageErrors(t *testing.T) {
	dir := filepath.Join(scenarioDir, "kubenet-migration")
	for _, routes := range []string{t.TempDir(), filepath.Join(t.TempDir(), "nope.json")} {
		args := append([]string{"check", "--routes", routes}, clusterArgs(dir)...)
		code, stdout, stderr := runCLI(t, args...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, routes) ||
			!strings.Contains(stderr, "is a directory") && !strings.Contains(stderr, "no such file or directory") {
			t.Errorf("--routes %s: exit %d, stdout %q, stderr %q; want exit 2 naming it and the OS error", routes, code, stdout, stderr)
		}
	}
}

// TestRoutesFromStdin: --routes - reads standard input like --cluster -.
func TestRoutesFromStdin(t *testing.T) {
	dir := filepath.Join(scenarioDir, "kubernetes-ipam-drift")
	dump, err := os.ReadFile(filepath.Join(dir, "routes.gobgp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := append([]string{"check", "--routes", "-", "-o", "json", "--fail-on", "never"}, clusterArgs(dir)...)
	code := Execute(context.Background(), args, bytes.NewReader(dump), &stdout, &stderr)
	if code != ExitOK || !strings.Contains(stdout.String(), `"rule": "podcidr-drift"`) || stderr.Len() > 0 {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr.String(), stdout.String())
	}
	code, _, stderr2 := runCLI(t, "check", "--routes", "-", "--cluster", "-")
	if code != ExitUsage || !strings.Contains(stderr2, "standard input (-) can be read once") {
		t.Errorf("--routes - --cluster -: exit %d, %s", code, stderr2)
	}
}

// TestFlagValuesAreChecked: every flag value is checked like its config key,
// the valid values listed, every problem at once.
func TestFlagValuesAreChecked(t *testing.T) {
	code, _, stderr := runCLI(t, "check", "--cluster", "c.json", "--routes", "r.json", "--ipam-mode", "clusterpool",
		"--routes-format", "xml", "-o", "xml", "--fail-on", "major", "--families", "ipv5")
	for _, want := range []string{
		`--ipam-mode "clusterpool": expected one of cluster-pool, kubernetes, multi-pool, eni, azure, alibabacloud, crd, delegated-plugin (did you mean cluster-pool?)`,
		`--routes-format "xml": expected one of auto, gobgp, frr, bird, mrt`,
		`-o "xml": expected one of table, wide, explain, json, yaml`,
		`--fail-on "major": expected one of info, warning, critical, never`,
		`--families "ipv5": expected one of ipv4, ipv6`,
	} {
		if code != ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("exit %d; stderr lacks %q:\n%s", code, want, stderr)
		}
	}
	code, _, stderr = runCLI(t, "validate-config", "--config", "x.yaml", "--ipam-mode", "clusterpool", "-o", "xml")
	if code != ExitUsage || !strings.Contains(stderr, "did you mean cluster-pool?") || !strings.Contains(stderr, "table, json, yaml") {
		t.Errorf("validate-config: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "version", "-o", "xml")
	if code != ExitUsage || !strings.Contains(stderr, `-o "xml": expected one of table, json, yaml`) {
		t.Errorf("version: exit %d, %s", code, stderr)
	}
}

// TestUncoveredFamilyIsSaidOnce: an IPv4-only dump against a dual-stack cluster
// gives one note naming IPv6 and the command that dumps it, not a missing
// route per node; --families says what the dumps cover.
func TestUncoveredFamilyIsSaidOnce(t *testing.T) {
	dir := filepath.Join(scenarioDir, "dual-stack-missing-ipv6")
	v4, v6 := filepath.Join(dir, "routes.frr.json"), filepath.Join(dir, "routes.frr-v6.json")
	check := func(args ...string) (int, map[string]any) {
		code, stdout, stderr := runCLI(t, append(append([]string{"check", "-o", "json"}, clusterArgs(dir)...), args...)...)
		out := map[string]any{}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil && code != ExitUsage {
			t.Fatalf("exit %d, %v\n%s\n%s", code, err, stdout, stderr)
		}
		out["stderr"] = stderr
		return code, out
	}
	code, out := check("--routes", v4)
	notes, _ := out["notes"].([]any)
	if code != ExitOK || len(out["findings"].([]any)) != 0 || len(notes) != 1 ||
		!strings.Contains(notes[0].(string), "the route dumps hold no IPv6 route") ||
		!strings.Contains(notes[0].(string), "vtysh -c 'show bgp ipv6 unicast json'") {
		t.Errorf("IPv4 only: exit %d, %v", code, out)
	}
	if code, out := check("--routes", v4, "--families", "ipv4,ipv6"); code != ExitFindings ||
		len(out["findings"].([]any)) != 3 || out["notes"] != nil {
		t.Errorf("--families ipv4,ipv6 with an IPv4 dump: exit %d, want the 3 IPv6 CIDRs missing: %v", code, out)
	}
	if code, out := check("--routes", v4, "--routes", v6); code != ExitFindings || len(out["findings"].([]any)) != 1 {
		t.Errorf("both families: exit %d, want the one finding of the scenario: %v", code, out)
	}
	if code, out := check("--routes", v4, "--routes", v6, "--families", "ipv4"); code != ExitUsage ||
		!strings.Contains(out["stderr"].(string), "routes.frr-v6.json holds IPv6 routes: add ipv6 to --families") {
		t.Errorf("--families ipv4 with an IPv6 dump: exit %d, %v", code, out["stderr"])
	}
}

// TestOneValidationForRunAndValidateConfig: validate-config refuses what run
// refuses, with the same problems, file and keys; run without --config says so.
func TestOneValidationForRunAndValidateConfig(t *testing.T) {
	empty := writeFile(t, "empty.yaml", "")
	code, stdout, _ := runCLI(t, "validate-config", "--config", empty)
	for _, key := range []string{"bgp.asn", "bgp.routerId", "bgp.dynamicNeighbors"} {
		if code != ExitFindings || !strings.Contains(stdout, empty+": critical: "+key+": required") {
			t.Errorf("validate-config of an empty file: exit %d, lacks %s:\n%s", code, key, stdout)
		}
	}
	code, _, stderr := runCLI(t, "run", "--config", empty)
	if code != ExitUsage || !strings.Contains(stderr, "3 configuration problem(s)") || !strings.Contains(stderr, empty+": bgp.asn: required") {
		t.Errorf("run of an empty file: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "run")
	if code != ExitUsage || !strings.Contains(stderr, "run was given no --config") {
		t.Errorf("run without --config: exit %d, %s", code, stderr)
	}
}

// TestOutputs: every -o of check, --fail-on never, and nothing logged on
// success unless -v.
func TestOutputs(t *testing.T) {
	dir := filepath.Join(scenarioDir, "incident-cluster-pool")
	base := append([]string{"check", "--routes", filepath.Join(dir, "routes.gobgp.json")}, clusterArgs(dir)...)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-o", "wide"}, ExitFindings, "NEXT HOP"},
		{[]string{"-o", "explain"}, ExitFindings, "hint: "},
		{[]string{"-o", "yaml"}, ExitFindings, "- rule: stale-route\n"},
		{[]string{"--fail-on", "never"}, ExitOK, "SEVERITY  RULE"},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		code := Execute(context.Background(), append(base, tc.args...), strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.want) || stderr.Len() > 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout lacks %q:\n%s", tc.args, code, stderr.String(), tc.want, stdout.String())
		}
		if tc.args[1] == "yaml" {
			var doc map[string]any
			if err := yaml.Unmarshal(stdout.Bytes(), &doc); err != nil || doc["summary"] == nil {
				t.Errorf("-o yaml does not parse: %v", err)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	Execute(context.Background(), append(base, "-v", "--log-format", "json"), strings.NewReader(""), &stdout, &stderr)
	if !strings.Contains(stderr.String(), `"message":"read routes"`) {
		t.Errorf("-v logs nothing: %q", stderr.String())
	}
}

// TestVersion: version prints the stamped and built-in versions, as text or JSON.
func TestVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, "version")
	if code != ExitOK || !strings.HasPrefix(stdout, "routewarden dev\n") || !strings.Contains(stdout, "  go      go1.") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
	_, stdout, _ = runCLI(t, "version", "-o", "json")
	var v versionInfo
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || v.Version != "dev" || !strings.HasPrefix(v.Go, "go1.") {
		t.Errorf("%v: %+v\n%s", err, v, stdout)
	}
}
