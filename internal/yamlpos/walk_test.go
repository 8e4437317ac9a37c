package yamlpos

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

type walkPeer struct {
	Prefix string        `yaml:"prefix"`
	Hold   time.Duration `yaml:"holdTime"`
}

type walkConfig struct {
	BGP struct {
		ASN     uint32     `yaml:"asn"`
		Port    int        `yaml:"listenPort"`
		Dynamic []walkPeer `yaml:"dynamicNeighbors"`
	} `yaml:"bgp"`
	Defaults map[string]walkPeer `yaml:"defaults"`
}

// TestWalk: each issue carries the key and line of its own node, flow style
// and merge keys included.
func TestWalk(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"flow style", "bgp: {asn: x, dynamicNeighbors: [{prefix: 10.0.0.0/24, holdTime: 5}]}\n",
			`mismatch bgp.asn:1 the string "x" uint32; mismatch bgp.dynamicNeighbors[0].holdTime:1 the number "5" time.Duration`},
		{"list for a number", "bgp:\n  listenPort: [179]\n", "mismatch bgp.listenPort:2 a list int"},
		{"unknown and duplicate", "bgp:\n  asn: 1\n  asn: 2\n  routerID: x\n",
			"duplicate bgp.asn:3 first 2; unknown bgp.routerID:4 [asn dynamicNeighbors listenPort]"},
		{"merge key", "defaults: {d: &d {holdTime: 2x}}\nbgp:\n  dynamicNeighbors:\n    - {prefix: a, <<: *d}\n",
			`mismatch defaults.d.holdTime:1 the string "2x" time.Duration; mismatch bgp.dynamicNeighbors[0].holdTime:1 the string "2x" time.Duration`},
		{"fits", "bgp: {asn: 65000, listenPort: 179, dynamicNeighbors: [{holdTime: 90s}]}\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var root yaml.Node
			if err := yaml.Unmarshal([]byte(tc.yaml), &root); err != nil {
				t.Fatal(err)
			}
			var got []string
			Walk(&root, reflect.TypeOf(walkConfig{}), "", func(is Issue) {
				switch is.Kind {
				case Mismatch:
					got = append(got, fmt.Sprintf("mismatch %s:%d %s %s", is.Path, is.Line, is.Found, is.Type))
				case UnknownKey:
					got = append(got, fmt.Sprintf("unknown %s:%d %v", is.Path, is.Line, is.Keys))
				case DuplicateKey:
					got = append(got, fmt.Sprintf("duplicate %s:%d first %d", is.Path, is.Line, is.FirstLine))
				}
			})
			if s := strings.Join(got, "; "); s != tc.want {
				t.Errorf("got  %s\nwant %s", s, tc.want)
			}
		})
	}
}
