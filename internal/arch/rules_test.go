package arch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layer is one layer of the house and the rooms (module paths) in it.
type layer struct {
	Name  string
	Rooms []string
}

// owner is a dependency only some rooms may import.
type owner struct {
	Dep   string
	Rooms []string
}

// waiver lets one import break the rules while it is being repaired.
type waiver struct{ From, To, Why string }

// rules are the house's rules, as data. A path ("bgp") names that package
// and every package under it; a path ending in * names every package it
// starts ("internal/test*").
type rules struct {
	Module    string
	Layers    []layer // lowest first
	PureLayer string
	Impure    []string
	Clock     []string
	Owned     []owner
	Kits      []string
	Leaves    []string
	Outside   []string // rooms outside the product
	Waivers   []waiver
	Bounded   []bound // rooms besides the pure layer that must not reach some packages
}

// bound says that a room (and every package under it) reaches none of Not.
type bound struct {
	Room string
	Not  []string
	Why  string
}

// pkg is one package as go list reports it.
type pkg struct {
	ImportPath                        string
	Dir                               string
	GoFiles, CgoFiles, IgnoredGoFiles []string
	Imports, TestImports              []string
	XTestImports                      []string
	Error                             *struct{ Err string }
}

// graph is the module's packages and everything they import (not their
// tests' dependencies).
type graph struct {
	Module   string
	Packages map[string]*pkg
	read     func(file string) ([]byte, error)
}

// loadModule lists the module this test is in and its dependencies.
func loadModule(t *testing.T) graph {
	t.Helper()
	gomod := strings.TrimSpace(goCmd(t, ".", "env", "GOMOD"))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("go env GOMOD: not in a module")
	}
	root := filepath.Dir(gomod)
	g := graph{Module: strings.TrimSpace(goCmd(t, root, "list", "-m")), Packages: map[string]*pkg{}, read: os.ReadFile}
	out := goCmd(t, root, "list", "-deps", "-e",
		"-json=ImportPath,Dir,GoFiles,CgoFiles,IgnoredGoFiles,Imports,TestImports,XTestImports,Error", "./...")
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		g.Packages[p.ImportPath] = &p
	}
	return g
}

func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Stderr = dir, &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// check returns every break of the rules in g, one line each.
func (r rules) check(g graph) []string {
	var problems []string
	used := map[waiver]bool{}
	var paths []string
	for path := range g.Packages {
		if _, ok := r.rel(path); ok {
			paths = append(paths, path)
		}
	}
	slices.Sort(paths)
	for _, path := range paths {
		problems = append(problems, r.checkPackage(g, g.Packages[path], used)...)
	}
	for _, w := range r.Waivers {
		if !used[w] {
			problems = append(problems, fmt.Sprintf(
				"the waiver %s -> %s is not needed any more: remove it (internal/arch/house_test.go)", w.From, w.To))
		}
	}
	return problems
}

// checkPackage returns the breaks of the rules by one package of the module,
// recording the waivers it used.
func (r rules) checkPackage(g graph, p *pkg, used map[waiver]bool) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	from := r.short(p.ImportPath)
	li, ok := r.layerOf(from)
	if !ok {
		return []string{from + " is in no layer of the house: add it to the layer table (internal/arch/house_test.go)"}
	}
	for _, imp := range p.Imports { // the product's imports: layers and kits
		to, ok := r.rel(imp)
		if lj, known := r.layerOf(to); ok && known && lj > li {
			if w, waived := r.waived(from, to); waived {
				used[w] = true
			} else {
				add("%s -> %s runs up the house (%s is in layer %s, %s in %s)", from, to,
					from, r.Layers[li].Name, to, r.Layers[lj].Name)
			}
		}
		if ok && matchAny(to, r.Kits) && !matchAny(from, r.Kits) && !matchAny(from, r.Outside) {
			add("%s -> %s: the product imports a test kit", from, to)
		}
	}
	all := slices.Concat(p.Imports, p.TestImports, p.XTestImports) // the product's and its tests'
	slices.Sort(all)
	for _, imp := range slices.Compact(all) {
		to, mine := r.rel(imp)
		for _, leaf := range r.Leaves {
			if mine && match(from, leaf) && !match(to, leaf) {
				add("%s -> %s: %s/ imports nothing of routewarden outside %s/", from, to, leaf, leaf)
			}
		}
		for _, o := range r.Owned {
			if match(imp, o.Dep) && !matchAny(from, o.Rooms) {
				add("%s -> %s: only %s/ import %s", from, imp, strings.Join(o.Rooms, "/, "), o.Dep)
			}
		}
	}
	if r.Layers[li].Name == r.PureLayer {
		for _, chain := range reach(g, p.ImportPath, r.Impure, r.short) {
			add("%s: the pure layer %s reaches %s", strings.Join(chain, " -> "), r.PureLayer, chain[len(chain)-1])
		}
		problems = append(problems, r.clockCalls(g, p)...)
	}
	for _, b := range r.Bounded {
		if !match(from, b.Room) {
			continue
		}
		for _, chain := range reach(g, p.ImportPath, b.Not, r.short) {
			add("%s: %s/ reaches %s (%s)", strings.Join(chain, " -> "), b.Room, chain[len(chain)-1], b.Why)
		}
	}
	return problems
}

// reach returns the shortest import chain from path to each package of not
// it reaches first (not those reached only through one of them); short names
// the chain's packages.
func reach(g graph, path string, not []string, short func(string) string) [][]string {
	parent := map[string]string{path: ""}
	var chains [][]string
	for queue := []string{path}; len(queue) > 0; queue = queue[1:] {
		p := g.Packages[queue[0]]
		if p == nil {
			continue
		}
		for _, imp := range p.Imports {
			if _, seen := parent[imp]; seen {
				continue
			}
			parent[imp] = queue[0]
			if !matchAny(imp, not) {
				queue = append(queue, imp)
				continue
			}
			var chain []string
			for at := imp; at != ""; at = parent[at] {
				chain = append([]string{short(at)}, chain...)
			}
			chains = append(chains, chain)
		}
	}
	return chains
}

// layerOf returns the index of the layer whose room matches rel longest.
func (r rules) layerOf(rel string) (int, bool) {
	best, at := -1, 0
	for i, l := range r.Layers {
		for _, room := range l.Rooms {
			if match(rel, room) && len(room) > best {
				best, at = len(room), i
			}
		}
	}
	return at, best >= 0
}

func (r rules) waived(from, to string) (waiver, bool) {
	for _, w := range r.Waivers {
		if match(from, w.From) && match(to, w.To) {
			return w, true
		}
	}
	return waiver{}, false
}

// rel returns path relative to the module, and whether it is the module's.
func (r rules) rel(path string) (string, bool) {
	if path == r.Module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, r.Module+"/")
	return rel, ok
}

// short is path relative to the module when it is the module's, else path.
func (r rules) short(path string) string {
	if rel, ok := r.rel(path); ok {
		return rel
	}
	return path
}

// match reports whether pattern names path: path is the pattern or under it,
// or, for a pattern ending in *, starts with what comes before the *.
func match(path, pattern string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(path, prefix)
	}
	return path == pattern || strings.HasPrefix(path, pattern+"/")
}

func matchAny(path string, patterns []string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(path, p) })
}
