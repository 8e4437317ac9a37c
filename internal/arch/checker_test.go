package arch

import (
	"go/token"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
)

// fakeRules are the house's rules over the fake module "m".
var fakeRules = rules{
	Module: "m", Layers: house, PureLayer: pureLayer, Impure: impure, Clock: clock,
	Owned: owned, Kits: kits, Leaves: leaves, Outside: outside, Bounded: bounded,
}

// fakeGraph builds a graph from "package: imports | test imports" lines (a
// package of the module is written without "m/"); src holds the source of
// files, by package, which become its GoFiles.
func fakeGraph(lines []string, src map[string]string) graph {
	g := graph{Module: "m", Packages: map[string]*pkg{}, read: func(file string) ([]byte, error) {
		if s, ok := src[path.Dir(file)]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}}
	full := func(p string) string {
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") || isStd(first) {
			return p
		}
		return "m/" + p
	}
	fields := func(s string) []string {
		var out []string
		for _, f := range strings.Fields(s) {
			out = append(out, full(f))
		}
		return out
	}
	for _, line := range lines {
		name, rest, _ := strings.Cut(line, ":")
		imports, tests, _ := strings.Cut(rest, "|")
		p := &pkg{ImportPath: full(name), Dir: name, Imports: fields(imports), TestImports: fields(tests)}
		if _, ok := src[name]; ok {
			p.GoFiles = []string{"a.go", "a_test.go"}
		}
		g.Packages[p.ImportPath] = p
	}
	return g
}

// isStd tells the standard library's paths used below from rooms by their first element.
func isStd(first string) bool {
	return slices.Contains([]string{"fmt", "log", "net", "runtime", "time"}, first)
}

func TestRulesOnFakeGraphs(t *testing.T) {
	clean := []string{
		"internal/radix:", "internal/testam: internal/loopback", "internal/loopback:",
		"validator: internal/radix fmt | internal/testam", "cilium: validator", "validator/lint: validator cilium",
		"bgp: validator github.com/osrg/gobgp/v4/api | monitor rtr internal/testam",
		"github.com/osrg/gobgp/v4/api: net/http", "net/http: log", "log:", "fmt:",
		"kube: validator cilium k8s.io/client-go/rest", "k8s.io/client-go/rest: net/http", "config: validator/lint",
		"monitor: validator runtime/debug | bgp kube", "runtime/debug:",
		"alert: monitor httpapi", "httpapi: alert monitor", "rtr: monitor", "demo: bgp monitor",
		"cmd/routewarden: demo alert kube config | internal/testam",
		"hack/bench: cmd/routewarden internal/testam github.com/osrg/gobgp/v4/api k8s.io/client-go/rest",
	}
	for _, tc := range []struct {
		name  string
		edit  []string // lines replacing clean's of the same package, or added
		src   map[string]string
		wants []string // each in one problem; none means no problem at all
	}{
		{name: "the house as it should be"},
		{name: "validator reaches net/http through a dependency",
			edit:  []string{"validator/lint: validator example.com/client", "example.com/client: net/http"},
			wants: []string{"validator/lint -> example.com/client -> net/http: the pure layer validator reaches net/http"}},
		{name: "validator imports a logger", edit: []string{"validator: github.com/rs/zerolog", "github.com/rs/zerolog:"},
			wants: []string{"validator -> github.com/rs/zerolog: the pure layer"}},
		{name: "validator reaches log/slog", edit: []string{"validator: log/slog", "log/slog:"},
			wants: []string{"validator -> log/slog: the pure layer validator reaches log/slog"}},
		{name: "validator reaches prometheus and runtime/debug through internal",
			edit: []string{"internal/radix: runtime/debug github.com/prometheus/client_golang/prometheus",
				"github.com/prometheus/client_golang/prometheus:"},
			wants: []string{"validator -> internal/radix -> runtime/debug:",
				"validator -> internal/radix -> github.com/prometheus/client_golang/prometheus:"}},
		{name: "validator reaches GoBGP through bgp", edit: []string{"validator/lint: bgp"},
			wants: []string{"validator/lint -> bgp runs up the house",
				"validator/lint -> bgp -> github.com/osrg/gobgp/v4/api: the pure layer"}},
		{name: "validator reads the clock", edit: []string{"validator: time", "time:"},
			src: map[string]string{"validator": "package validator\nimport \"time\"\nfunc f(t time.Time) bool {\n" +
				"\treturn t.After(t) || time.Since(t) > 0\n}\nvar later = time.AfterFunc\n"},
			wants: []string{"validator/a.go:4:", "time.Since: the pure layer reads the clock",
				"validator/a.go:6:", "time.AfterFunc"}},
		{name: "the clock under another name", edit: []string{"validator: time", "time:"},
			src:   map[string]string{"validator": "package validator\nimport clk \"time\"\nvar t = clk.NewTicker(1)\n"},
			wants: []string{"validator/a.go:3:", "time.NewTicker"}},
		{name: "a variable named time is not the clock", edit: []string{"validator: time", "time:"},
			src: map[string]string{"validator": "package validator\nimport \"time\"\n" +
				"func f(u time.Time) bool { time := u; return time.After(u) }\n"}},
		{name: "the Cilium model reaches client-go", edit: []string{"cilium: validator k8s.io/client-go/rest"},
			wants: []string{"cilium -> k8s.io/client-go/rest: only kube/, hack/ import k8s.io/client-go",
				"cilium -> k8s.io/client-go/rest: the pure layer validator reaches k8s.io/client-go/rest"}},
		{name: "the Cilium model imports the informers", edit: []string{"cilium: validator kube"},
			wants: []string{"cilium -> kube runs up the house (cilium is in layer validator, kube in sources)"}},
		{name: "the Cilium model reads the clock", edit: []string{"cilium: validator time", "time:"},
			src:   map[string]string{"cilium": "package cilium\nimport \"time\"\nvar now = time.Now()\n"},
			wants: []string{"cilium/a.go:3:", "time.Now: the pure layer reads the clock"}},
		{name: "kube imports GoBGP", edit: []string{"kube: validator github.com/osrg/gobgp/v4/api"},
			wants: []string{"kube -> github.com/osrg/gobgp/v4/api: only bgp/, hack/ import github.com/osrg/gobgp"}},
		{name: "a test of cmd imports client-go",
			edit:  []string{"cmd/routewarden: demo | k8s.io/client-go/rest"},
			wants: []string{"cmd/routewarden -> k8s.io/client-go/rest: only kube/, hack/ import k8s.io/client-go"}},
		{name: "bgp imports the monitoring loop", edit: []string{"bgp: monitor"},
			wants: []string{"bgp -> monitor runs up the house (bgp is in layer sources, monitor in monitor)"}},
		{name: "the loop reaches GoBGP through bgp", edit: []string{"monitor: validator bgp"},
			wants: []string{"monitor -> bgp -> github.com/osrg/gobgp/v4/api: monitor/ reaches"}},
		{name: "the loop logs", edit: []string{"monitor: validator github.com/rs/zerolog", "github.com/rs/zerolog:"},
			wants: []string{"monitor -> github.com/rs/zerolog: monitor/ reaches github.com/rs/zerolog"}},
		{name: "the product imports a test helper of internal", edit: []string{"alert: monitor internal/loopback"},
			wants: []string{"alert -> internal/loopback: the product imports a test kit"}},
		{name: "internal imports a room", edit: []string{"internal/radix: validator"},
			wants: []string{"internal/radix -> validator runs up the house",
				"internal/radix -> validator: internal/ imports nothing of routewarden outside internal/"}},
		{name: "a test of internal imports a room", edit: []string{"internal/radix: | bgp"},
			wants: []string{"internal/radix -> bgp: internal/ imports nothing of routewarden outside internal/"}},
		{name: "the product imports a test kit", edit: []string{"alert: monitor internal/testfrr", "internal/testfrr:"},
			wants: []string{"alert -> internal/testfrr: the product imports a test kit"}},
		{name: "the product imports the golden files", edit: []string{"config: internal/golden", "internal/golden:"},
			wants: []string{"config -> internal/golden: the product imports a test kit"}},
		{name: "anything imports hack", edit: []string{"cmd/routewarden: hack/bench"},
			wants: []string{"cmd/routewarden -> hack/bench runs up the house"}},
		{name: "a room nobody placed", edit: []string{"newroom: validator"},
			wants: []string{"newroom is in no layer of the house: add it to the layer table"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fakeRules.check(fakeGraph(edit(clean, tc.edit), tc.src))
			if len(tc.wants) == 0 && len(got) > 0 {
				t.Fatalf("problems in a sound house:\n%s", strings.Join(got, "\n"))
			}
			for _, want := range tc.wants {
				if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, want) }) {
					t.Errorf("no problem says %q; got:\n%s", want, strings.Join(got, "\n"))
				}
			}
		})
	}
}

func TestWaivers(t *testing.T) {
	r := fakeRules
	r.Waivers = []waiver{{From: "kube", To: "monitor", Why: "being repaired"}}
	g := fakeGraph([]string{"kube: monitor", "monitor:"}, nil)
	if got := r.check(g); len(got) > 0 {
		t.Errorf("a waived import is reported:\n%s", strings.Join(got, "\n"))
	}
	g = fakeGraph([]string{"kube:", "monitor:"}, nil)
	got := r.check(g)
	if want := "the waiver kube -> monitor is not needed any more"; len(got) != 1 || !strings.Contains(got[0], want) {
		t.Errorf("a stale waiver: got %q, want one problem saying %q", got, want)
	}
}

func TestClockUsesOfADotImport(t *testing.T) {
	got := clockUses(token.NewFileSet(), "v.go", []byte("package v\nimport . \"time\"\nvar x = Now\n"), clock)
	if want := "imports time with a dot"; len(got) != 1 || !strings.Contains(got[0], want) {
		t.Errorf("got %q, want one problem saying %q", got, want)
	}
}

// edit returns lines with each of edits replacing the line of its package,
// or appended when there is none.
func edit(lines, edits []string) []string {
	out := slices.Clone(lines)
	for _, e := range edits {
		name, _, _ := strings.Cut(e, ":")
		if i := slices.IndexFunc(out, func(l string) bool { return strings.HasPrefix(l, name+":") }); i >= 0 {
			out[i] = e
		} else {
			out = append(out, e)
		}
	}
	return out
}
