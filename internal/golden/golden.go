// Package golden compares test output with files under testdata/ and rewrites
// them when tests run with -update.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// Assert compares got with the golden file at path (relative to the test's
// package), or writes it when -update is set.
func Assert(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test -update to create it): %v", err)
	}
	if string(want) != string(got) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// Updating reports whether the tests run with -update, for tests that keep
// other files (such as the README's examples) in step with their golden files.
func Updating() bool { return *update }
