package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestTiers runs the real go test over testdata/tiers: the quick tier runs
// every test, the rest runs exactly the tests it skipped (a's TestSlow and
// TestSub, never b's TestSlow, which ran in full), and a failure in a tier
// prints the failed test's words and sets the exit code.
func TestTiers(t *testing.T) {
	t.Chdir("testdata/tiers")
	var out, errOut bytes.Buffer
	quick, code := goTest([]string{"-short", "-count=1", "./..."}, &out, &errOut)
	if code != 0 {
		t.Fatalf("quick tier exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if quick.ran != 4 || quick.skippedTests() != 2 {
		t.Errorf("quick tier: %d tests ran, %d skipped; want 4 and 2", quick.ran, quick.skippedTests())
	}
	if got := out.String(); !strings.Contains(got, "ok  \ttiers/a\t") || !strings.Contains(got, "ok  \ttiers/b\t") ||
		strings.Contains(got, "=== RUN") || strings.Contains(got, "PASS\n") {
		t.Errorf("quick tier printed, want go test's lines without -v:\n%s", got)
	}
	want := []restRun{{pkg: "tiers/a", tests: 2, pattern: "^(TestSlow|TestSub)$"}}
	if got := quick.rest(); !slices.Equal(got, want) {
		t.Errorf("rest %+v, want %+v", got, want)
	}

	out.Reset()
	if code := run([]string{"--", "./..."}, &out, &errOut); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if got := out.String(); !strings.Contains(got, "the rest: 2 tests of 1 packages") {
		t.Errorf("run printed:\n%s", got)
	}

	t.Setenv("TESTTIER_FAIL", "1")
	out.Reset()
	if code := run([]string{"--", "./a"}, &out, &errOut); code == 0 {
		t.Errorf("a failing slow test: exit 0\n%s", out.String())
	}
	if got := out.String(); !strings.Contains(got, "the slow test failed") || !strings.Contains(got, "FAIL\ttiers/a") {
		t.Errorf("a failing slow test printed:\n%s", got)
	}
	out.Reset()
	if code := run([]string{"--", "./b"}, &out, &errOut); code == 0 {
		t.Errorf("a failing quick test: exit 0\n%s", out.String())
	}
	if got := out.String(); !strings.Contains(got, "b's own words") || strings.Contains(got, "the rest:") {
		t.Errorf("a failing quick test printed (the rest must not run):\n%s", got)
	}
}
