package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// event is one line of go test -json (cmd/test2json's TestEvent, and the
// build events go test adds).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output
	Test       string
	Output     string
}

// line is a line of a package's output, with the top-level test it belongs
// to ("" for the package's own).
type line struct{ top, text string }

// tier is what one go test run showed: the top-level tests each package
// ran and those that skipped (themselves or a subtest).
type tier struct {
	ran     int
	skipped map[string]map[string]bool // package → top-level test
	out     map[string][]line          // a package's output until it ends
	failed  map[string]map[string]bool // package → top-level test
}

func newTier() *tier {
	return &tier{skipped: map[string]map[string]bool{}, out: map[string][]line{}, failed: map[string]map[string]bool{}}
}

// read reads go test -json from r and prints, as each package ends, what
// go test prints without -v.
func (t *tier) read(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(w, sc.Text()) // not an event: go test's own words
			continue
		}
		t.add(e, w)
	}
	return sc.Err()
}

func (t *tier) add(e event, w io.Writer) {
	top, _, _ := strings.Cut(e.Test, "/")
	switch {
	case e.Action == "build-output":
		fmt.Fprint(w, e.Output)
	case e.Action == "output":
		t.out[e.Package] = append(t.out[e.Package], line{top, e.Output})
	case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
		t.end(e.Package, e.Action == "fail", w)
	case e.Action == "skip":
		mark(t.skipped, e.Package, top)
		if top == e.Test {
			t.ran++
		}
	case e.Action == "fail":
		mark(t.failed, e.Package, top)
		if top == e.Test {
			t.ran++
		}
	case e.Action == "pass" && top == e.Test:
		t.ran++
	}
}

// end prints a package's output as go test does without -v: its own lines
// (the "ok" or "FAIL" line, what TestMain printed) and, when it failed, the
// lines of its failed tests.
func (t *tier) end(pkg string, failed bool, w io.Writer) {
	for _, l := range t.out[pkg] {
		switch {
		case l.top == "":
			if failed || strings.TrimSpace(l.text) != "PASS" {
				fmt.Fprint(w, l.text)
			}
		case failed && t.failed[pkg][l.top] && !strings.HasPrefix(l.text, "=== "):
			fmt.Fprint(w, l.text)
		}
	}
	delete(t.out, pkg)
}

func mark(m map[string]map[string]bool, pkg, test string) {
	if m[pkg] == nil {
		m[pkg] = map[string]bool{}
	}
	m[pkg][test] = true
}

// skippedTests counts the top-level tests that skipped, or skipped a subtest.
func (t *tier) skippedTests() int {
	n := 0
	for _, tests := range t.skipped {
		n += len(tests)
	}
	return n
}

// rest returns, for each package whose tests skipped, a -run pattern that
// selects exactly those top-level tests; the packages come with the most
// such tests first (most likely the longest).
func (t *tier) rest() []restRun {
	var out []restRun
	for pkg, tests := range t.skipped {
		names := slices.Sorted(maps.Keys(tests))
		out = append(out, restRun{pkg: pkg, tests: len(names), pattern: "^(" + strings.Join(names, "|") + ")$"})
	}
	slices.SortFunc(out, func(a, b restRun) int {
		if a.tests != b.tests {
			return b.tests - a.tests
		}
		return strings.Compare(a.pkg, b.pkg)
	})
	return out
}

// restRun is one package's rest: the tests the quick tier skipped.
type restRun struct {
	pkg     string
	tests   int
	pattern string
}
