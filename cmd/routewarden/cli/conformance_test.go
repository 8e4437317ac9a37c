package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/bgp/dump"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/internal/golden"
)

// The conformance matrix: every input routewarden reads a ToR's table
// from, against every variant of one scenario spec (testdata/conformance/
// spec.yaml): the healthy twins (a realistic ToR table: a default route,
// uplinks, another tenant's prefixes, the ToR's own routes) give no
// finding, each fault exactly its own.

// dumpCell is one way a ToR's table is dumped: the files of a variant
// directory, read together by check.
type dumpCell struct {
	name  string
	files []string
}

// conformanceDumps are, per bgp/dump format, the dumps the real daemons
// write in it (hack/gen-route-dumps.sh). A format missing here fails
// TestConformanceCoversEveryInput.
var conformanceDumps = map[string][]dumpCell{
	"gobgp": {{"gobgpd global rib -j", []string{"routes.gobgp.json", "routes.gobgp-v6.json"}}},
	"frr":   {{"FRR show bgp unicast json", []string{"routes.frr.json", "routes.frr-v6.json"}}},
	"bird":  {{"BIRD show route all", []string{"routes.bird.txt"}}},
	// Not yet gobgpd's mrt-dump (routegen -no-gobgp-mrt): bgp/dump reads
	// 4.8.0's IPv6 records now, but the variants' routes.mrt are not taken.
	"mrt": {{"FRR dump bgp routes-mrt", []string{"routes.frr.mrt"}}, {"BIRD protocol mrt", []string{"routes.bird.mrt"}}},
}

// awaitingParser names, per format, the parser a healthy twin with the
// ToR's own routes waits for: such a cell is skipped, naming it, while
// check refuses the dump (exit 2); once the parser reads it, the cell runs.
var awaitingParser = map[string]string{
	"frr": `bgp/dump's FRR JSON reader for the ToR's own routes (peerId "(unspec)")`,
}

// TestConformanceCoversEveryInput: a dump format or a run feed without its
// cells in the matrix fails here.
func TestConformanceCoversEveryInput(t *testing.T) {
	for _, f := range dump.Formats {
		if len(conformanceDumps[f]) == 0 {
			t.Errorf("dump format %q has no healthy twin in the conformance matrix: add its dumps to conformanceDumps "+
				"(and to hack/routegen)", f)
		}
	}
	for _, f := range runFeeds() {
		if conformanceFeeds[f] == nil {
			t.Errorf("run feed %q has no healthy twin in the conformance matrix: add it to conformanceFeeds", f)
		}
	}
	s := loadConformanceSpec(t)
	if !slices.ContainsFunc(s.Variants, func(v confVariant) bool { return v.TorNetworks && len(v.Want) == 0 }) {
		t.Error("spec.yaml has no healthy twin with the ToR's own routes")
	}
}

// runFeeds are the ways paths reach routewarden run: a BGP session of each
// peer role, and BMP.
func runFeeds() []string { return append(slices.Clone(config.PeerRoles), "bmp") }

// TestConformanceCheck: check on every dump of every variant. -update
// takes the dumps again with the real daemons (hack/gen-route-dumps.sh).
func TestConformanceCheck(t *testing.T) {
	s := loadConformanceSpec(t)
	if golden.Updating() {
		dirs := writeConformanceSpecs(t, s)
		cmd := exec.Command("../../../hack/gen-route-dumps.sh", dirs...)
		cmd.Env = append(os.Environ(), "ROUTEGEN_FLAGS=-no-gobgp-mrt")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hack/gen-route-dumps.sh: %v\n%s", err, out)
		}
	}
	cluster := filepath.Join(conformanceDir, s.Cluster)
	for _, v := range s.Variants {
		for _, format := range dump.Formats {
			for _, cell := range conformanceDumps[format] {
				t.Run(v.Name+"/"+cell.name, func(t *testing.T) {
					args := []string{"check", "-o", "json", "--fail-on", "never", "--routes-format", format,
						"--cluster", filepath.Join(cluster, "cluster.json"), "--cluster", filepath.Join(cluster, "cilium-config.yaml")}
					for _, f := range cell.files {
						args = append(args, "--routes", filepath.Join(conformanceDir, v.Name, f))
					}
					code, out, stderr := runCLI(t, args...)
					if code == 2 && v.TorNetworks && awaitingParser[format] != "" {
						t.Skipf("waiting for %s: check refuses the dump: %s", awaitingParser[format], firstLine(stderr))
					}
					if code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					var res struct {
						Findings []conformanceFinding `json:"findings"`
						Summary  struct {
							NetworkRoutes int `json:"networkRoutes"`
						} `json:"summary"`
					}
					if err := json.Unmarshal([]byte(out), &res); err != nil {
						t.Fatalf("check -o json: %v\n%s", err, out)
					}
					checkConformance(t, v, findingKeys(res.Findings))
					if res.Summary.NetworkRoutes == 0 {
						t.Errorf("no route counted as the network's:\n%s", out)
					}
				})
			}
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(strings.TrimSpace(s), "\n"); return l }

// conformanceFinding is what the matrix compares of a finding of check -o json.
type conformanceFinding struct{ Rule, Prefix, Node string }

func findingKeys(fs []conformanceFinding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		node := f.Node
		if node == "" {
			node = "-"
		}
		out = append(out, f.Rule+" "+f.Prefix+" "+node)
	}
	slices.Sort(out)
	return out
}

// checkConformance fails unless the findings are exactly the variant's.
func checkConformance(t *testing.T, v confVariant, got []string) {
	t.Helper()
	want := slices.Sorted(slices.Values(v.Want))
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// TestConformanceRun: routewarden run on every feed of every variant.
func TestConformanceRun(t *testing.T) {
	s := loadConformanceSpec(t)
	for _, v := range s.Variants {
		for _, feed := range runFeeds() {
			t.Run(v.Name+"/"+feed, func(t *testing.T) {
				if conformanceFeeds[feed] == nil {
					t.Fatalf("no feed %s", feed)
				}
				want := v
				if feed == config.RoleToR && v.WantRelayed != nil {
					want.Want = *v.WantRelayed
				}
				checkConformance(t, want, conformanceFeeds[feed](t, s, v))
			})
		}
	}
}
