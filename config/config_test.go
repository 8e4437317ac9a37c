package config

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/golden"
	"github.com/routewarden/routewarden/validator"
)

func TestLoadGood(t *testing.T) {
	cfg, problems, err := Load("testdata/good.yaml")
	if err != nil || len(problems) > 0 {
		t.Fatalf("err %v, problems %v", err, problems)
	}
	if cfg.BGP.ASN != 65000 || cfg.BGP.GracefulRestart.Window != 180*time.Second || !cfg.BGP.GracefulRestart.Enabled {
		t.Errorf("values not loaded or defaulted: %+v", cfg.BGP)
	}
	opts := cfg.ValidatorOptions()
	if !opts.Rules[validator.RulePodCIDRDrift].Disabled || opts.Rules[validator.RuleDuplicateOrigin].Severity != validator.SeverityCritical {
		t.Errorf("rule options: %+v", opts.Rules)
	}
	if opts.Scope["topology.kubernetes.io/zone"] != "rack1" || len(opts.AllowedRanges) != 1 {
		t.Errorf("scope or ranges: %+v", opts)
	}
}

func TestDefaultsWithoutFile(t *testing.T) {
	cfg, problems, err := Load("")
	if err != nil || len(problems) > 0 {
		t.Fatalf("err %v, problems %v", err, problems)
	}
	if cfg.BGP.ListenPort != 179 || cfg.Log.Level != "info" {
		t.Errorf("defaults: %+v", cfg)
	}
}

func TestEnvironmentOverrides(t *testing.T) {
	t.Setenv("ROUTEWARDEN_BGP_ASN", "65123")
	t.Setenv("ROUTEWARDEN_CLUSTER_NAME", "from-env")
	cfg, problems, err := Load("testdata/good.yaml")
	if err != nil || len(problems) > 0 {
		t.Fatalf("err %v, problems %v", err, problems)
	}
	if cfg.BGP.ASN != 65123 || cfg.Cluster.Name != "from-env" {
		t.Errorf("env not applied: asn %d name %q", cfg.BGP.ASN, cfg.Cluster.Name)
	}
}

// TestEveryProblemAtOnce: a file with many mistakes gets all of them, each with
// file, line and key.
func TestEveryProblemAtOnce(t *testing.T) {
	_, problems, err := Load("testdata/bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range problems {
		b.WriteString(p.String() + "\n")
	}
	golden.Assert(t, "testdata/bad.golden", []byte(b.String()))
}

func TestEveryValueProblemAtOnce(t *testing.T) {
	fixed := strings.Replace(readFile(t, "testdata/bad.yaml"), "asn: sixty-five-thousand", "asn: 0", 1)
	path := t.TempDir() + "/bad-values.yaml"
	if err := os.WriteFile(path, []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	_, problems, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range problems {
		b.WriteString(strings.TrimPrefix(p.String(), path) + "\n")
	}
	golden.Assert(t, "testdata/bad-values.golden", []byte(b.String()))
}

func TestSyntaxError(t *testing.T) {
	path := t.TempDir() + "/syntax.yaml"
	if err := os.WriteFile(path, []byte("bgp:\n  asn: 1\n   routerId: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, problems, _ := Load(path)
	if len(problems) != 1 || problems[0].Line != 3 {
		t.Fatalf("problems %v, want one on line 3", problems)
	}
}

func TestMissingFile(t *testing.T) {
	if _, _, err := Load("testdata/nope.yaml"); err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Fatalf("err %v", err)
	}
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBMP(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // problems, in the golden file's format
	}{
		{"off by default", "bgp:\n  asn: 65000\n", nil},
		{"on", "bgp:\n  bmp:\n    listen: \":11019\"\n    allowedSources: [10.0.0.0/24]\n", nil},
		{"port out of range", "bgp:\n  bmp:\n    listen: \"127.0.0.1:0\"\n",
			[]string{`:3: bgp.bmp.listen: "127.0.0.1:0": port "0" is not a TCP port (1–65535)`}},
		{"sources without a listener", "bgp:\n  bmp:\n    allowedSources: [10.0.0.0/24]\n",
			[]string{`:3: bgp.bmp.allowedSources: set, but bgp.bmp.listen is empty: the BMP station is off`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkProblems(t, tc.yaml, tc.want) })
	}
	cfg, _, _ := Load("testdata/good.yaml")
	if cfg.BGP.BMP.Listen != "" {
		t.Errorf("BMP on without bgp.bmp.listen: %+v", cfg.BGP.BMP)
	}
	_, problems, err := Load("testdata/bad-bmp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range problems {
		b.WriteString(p.String() + "\n")
	}
	golden.Assert(t, "testdata/bad-bmp.golden", []byte(b.String()))
}

func TestPeerRole(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // problems, in the golden file's format
	}{
		{"node by default", "bgp:\n  asn: 65000\n  neighbors:\n    - address: 10.0.0.1\n", nil},
		{"tor", "bgp:\n  asn: 65000\n  dynamicNeighbors:\n    - prefix: 10.0.0.0/24\n      role: tor\n", nil},
		{"unknown", "bgp:\n  asn: 65000\n  neighbors:\n    - address: 10.0.0.1\n      role: spine\n",
			[]string{`:5: bgp.neighbors[0].role: unknown role "spine" (expected node, a Cilium node peering with ` +
				`routewarden, or tor, a ToR relaying the nodes' paths)`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkProblems(t, tc.yaml, tc.want) })
	}
}

// TestEveryRuleIsAKey: rules: accepts every rule of the catalogue, slow-convergence
// included, and its options reach the validator's.
func TestEveryRuleIsAKey(t *testing.T) {
	for _, id := range validator.RuleIDs() {
		path := t.TempDir() + "/routewarden.yaml"
		if err := os.WriteFile(path, []byte("rules:\n  "+id+": {enabled: false, severity: info}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, problems, err := Load(path)
		if err != nil || len(problems) > 0 {
			t.Errorf("rules: {%s: …}: err %v, problems %v", id, err, problems)
			continue
		}
		opts := cfg.ValidatorOptions()
		if id := validator.RuleID(id); opts.Enabled(id) || opts.Severity(id) != validator.SeverityInfo {
			t.Errorf("rules: {%s: …} gives the options %+v", id, opts.Rules[id])
		}
	}
}
