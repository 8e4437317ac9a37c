package arch

import (
	"strings"
	"testing"
)

// The house, as data: change these tables when the house changes (and
// ARCHITECTURE.md with them). Paths are relative to the module; a path names
// that package and every package under it, and the longest one that matches
// a package decides.

// house is the layers, lowest first: a package may import (outside its
// tests) only packages of its own layer or a lower one.
var house = []layer{
	{Name: "internal", Rooms: []string{"internal"}},
	// The pure layer: the validator, and the Cilium model (cilium/), which
	// decodes Cilium's and Kubernetes' objects and translates them into the
	// validator's Cluster (so the validator cannot import it back), and which
	// validate-config's lint (validator/lint) reads.
	{Name: "validator", Rooms: []string{"validator", "cilium"}},
	{Name: "sources", Rooms: []string{"bgp", "kube", "config"}},
	{Name: "monitor", Rooms: []string{"monitor"}},
	{Name: "outputs", Rooms: []string{"alert", "httpapi", "rtr", "metrics"}},
	{Name: "demo", Rooms: []string{"demo"}},
	{Name: "cmd", Rooms: []string{"cmd", "deploy"}},
	// hack/ (bench harness, tools) is outside the product: it may import
	// anything, nothing may import it.
	{Name: "hack", Rooms: []string{"hack"}},
}

// pureLayer is the layer that must stay pure and deterministic: it reaches
// none of impure, and its source files call none of clock.
const pureLayer = "validator"

// impure is what the pure layer must not reach, directly or through anything
// it imports: a path names that package and every package under it.
var impure = []string{
	"github.com/osrg/gobgp",
	"k8s.io/client-go",
	"github.com/rs/zerolog", "log", // log/slog too
	"net/http",
	"github.com/prometheus",
	"runtime/debug",
}

// clock is the package time's functions that read the clock or start timers.
var clock = []string{"Now", "Since", "Until", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick", "Sleep"}

// owned are the dependencies only one room may import (its tests too); the
// others are exempt rooms outside the product.
var owned = []owner{
	{Dep: "github.com/osrg/gobgp", Rooms: []string{"bgp", "hack"}},
	{Dep: "k8s.io/client-go", Rooms: []string{"kube", "hack"}},
}

// kits are the test kits: test files and hack/ import them, the product does not.
var kits = []string{"bgp/bgptest", "internal/test*", "internal/golden", "internal/logbuf", "internal/loopback",
	"internal/wait"}

// outside are the rooms outside the product: they may import test kits.
var outside = []string{"hack"}

// leaves are the rooms whose packages, tests included, import no routewarden
// package outside them.
var leaves = []string{"internal"}

// bounded are the rooms above the pure layer that still must not reach some
// packages: the monitoring loop owns the clock, timers and GC control, but
// learns of routes and the cluster only through its sources' interfaces.
var bounded = []bound{
	{Room: "monitor", Why: "the loop reads routes and the cluster through interfaces that bgp/ and kube/ satisfy",
		Not: []string{"github.com/osrg/gobgp", "k8s.io/client-go", "github.com/rs/zerolog", "log", "net/http",
			"github.com/prometheus"}},
}

// waivers are known breaks being repaired; each must still be needed.
var waivers = []waiver{}

// TestHouse checks the module against the rules.
func TestHouse(t *testing.T) {
	g := loadModule(t)
	problems := rules{
		Module: g.Module, Layers: house, PureLayer: pureLayer, Impure: impure, Clock: clock,
		Owned: owned, Kits: kits, Leaves: leaves, Outside: outside, Waivers: waivers, Bounded: bounded,
	}.check(g)
	if len(problems) > 0 {
		t.Errorf("the house's rules are broken (ARCHITECTURE.md; the tables in internal/arch/house_test.go):\n\t%s",
			strings.Join(problems, "\n\t"))
	}
	for _, p := range []string{"validator", "cilium", "bgp", "kube", "cmd/routewarden"} {
		if g.Packages[g.Module+"/"+p] == nil {
			t.Errorf("go list did not list %s: the graph checked is not the module's", p)
		}
	}
}
