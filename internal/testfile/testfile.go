// Package testfile writes the files tests give the code under test: a file
// in the test's temporary folder, or a fixture of testdata taken again
// (-update). A test kit: the product does not import it.
package testfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Temp writes content to name in the test's temporary folder and returns its path.
func Temp(tb testing.TB, name, content string) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// Fixture writes content to dir/name, making dir: a fixture taken again.
func Fixture(tb testing.TB, dir, name, content string) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}
