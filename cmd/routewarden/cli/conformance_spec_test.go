package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/golden"
)

// The conformance matrix's scenario spec (testdata/conformance/spec.yaml)
// and its expansion into hack/routegen's routes.spec.yaml, one a variant.

const conformanceDir = "../../../testdata/conformance"

type confSpec struct {
	Cluster  string        `yaml:"cluster"`
	Nodes    string        `yaml:"nodes"`
	ToR      confCollector `yaml:"tor"`
	Network  []confSpeaker `yaml:"network"`
	Variants []confVariant `yaml:"variants"`
}

type confCollector struct {
	ASN      uint32   `yaml:"asn"`
	RouterID string   `yaml:"routerId"`
	Networks []string `yaml:"networks,omitempty"`
}

type confSpeaker struct {
	Name         string      `yaml:"name"`
	ASN          uint32      `yaml:"asn"`
	RouterID     string      `yaml:"routerId"`
	LocalAddress string      `yaml:"localAddress"`
	Routes       []confRoute `yaml:"routes"`
}

type confRoute struct {
	Prefix      string   `yaml:"prefix"`
	NextHop     string   `yaml:"nextHop"`
	Communities []string `yaml:"communities,omitempty"`
}

type confVariant struct {
	Name        string        `yaml:"name"`
	TorNetworks bool          `yaml:"torNetworks"`
	Remove      []confChange  `yaml:"remove"`
	Add         []confChange  `yaml:"add"`
	Speakers    []confSpeaker `yaml:"speakers"`
	// Want are the findings, "rule prefix node" ("-" for no node); none for a healthy twin.
	Want []string `yaml:"want"`
	// WantRelayed, when set, are the findings of the run feed through a
	// ToR (role tor), which relays one path a prefix.
	WantRelayed *[]string `yaml:"wantRelayed"`
}

type confChange struct {
	Speaker string `yaml:"speaker"`
	Prefix  string `yaml:"prefix"`
	NextHop string `yaml:"nextHop"`
}

// routegenSpec is hack/routegen's routes.spec.yaml.
type routegenSpec struct {
	Collector confCollector `yaml:"collector"`
	Speakers  []confSpeaker `yaml:"speakers"`
}

func loadConformanceSpec(t *testing.T) *confSpec {
	t.Helper()
	var s confSpec
	readYAML(t, filepath.Join(conformanceDir, "spec.yaml"), &s)
	return &s
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// expand returns variant v's routegen spec: the healthy nodes, the
// network's speakers, the ToR's own routes where asked, and v's changes.
func (s *confSpec) expand(t *testing.T, v confVariant) routegenSpec {
	t.Helper()
	var nodes routegenSpec
	readYAML(t, filepath.Join(conformanceDir, s.Nodes), &nodes)
	out := routegenSpec{Collector: confCollector{ASN: s.ToR.ASN, RouterID: s.ToR.RouterID}}
	if v.TorNetworks {
		out.Collector.Networks = s.ToR.Networks
	}
	out.Speakers = slices.Concat(nodes.Speakers, s.Network, v.Speakers)
	find := func(name string) *confSpeaker {
		for i := range out.Speakers {
			if out.Speakers[i].Name == name {
				return &out.Speakers[i]
			}
		}
		t.Fatalf("variant %s: no speaker %s", v.Name, name)
		return nil
	}
	for _, c := range v.Remove {
		sp := find(c.Speaker)
		n := len(sp.Routes)
		sp.Routes = slices.DeleteFunc(slices.Clone(sp.Routes), func(r confRoute) bool { return r.Prefix == c.Prefix })
		if len(sp.Routes) == n {
			t.Fatalf("variant %s: %s announces no %s", v.Name, c.Speaker, c.Prefix)
		}
	}
	for _, c := range v.Add {
		sp := find(c.Speaker)
		sp.Routes = append(slices.Clone(sp.Routes), confRoute{Prefix: c.Prefix, NextHop: c.NextHop})
	}
	return out
}

// writeConformanceSpecs writes every variant's routes.spec.yaml and
// returns the variant directories.
func writeConformanceSpecs(t *testing.T, s *confSpec) []string {
	t.Helper()
	var dirs []string
	for _, v := range s.Variants {
		dir := filepath.Join(conformanceDir, v.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := yaml.Marshal(s.expand(t, v))
		if err != nil {
			t.Fatal(err)
		}
		head := fmt.Sprintf("# Generated from ../spec.yaml (variant %s) by TestConformance -update: do not edit.\n", v.Name)
		writeFixture(t, dir, "routes.spec.yaml", head+string(b))
		dirs = append(dirs, dir)
	}
	return dirs
}

// TestConformanceSpecsInSync: every variant's routes.spec.yaml is
// spec.yaml's expansion (-update writes them).
func TestConformanceSpecsInSync(t *testing.T) {
	s := loadConformanceSpec(t)
	if golden.Updating() {
		writeConformanceSpecs(t, s)
	}
	for _, v := range s.Variants {
		var got routegenSpec
		readYAML(t, filepath.Join(conformanceDir, v.Name, "routes.spec.yaml"), &got)
		want := s.expand(t, v)
		if a, b := fmt.Sprint(got), fmt.Sprint(want); a != b {
			t.Errorf("%s/routes.spec.yaml is not spec.yaml's expansion (go test -run TestConformanceSpecsInSync -update)", v.Name)
		}
	}
}
