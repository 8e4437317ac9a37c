package cli

import (
	"strings"
	"testing"
)

// TestOutputNames: every command calls its human-readable output table, and
// -o text (validate-config's and version's former name) still gives it.
func TestOutputNames(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"validate-config", "--config", "../../../config/testdata/bad.yaml"}} {
		_, table, _ := runCLI(t, append(args, "-o", "table")...)
		code, text, stderr := runCLI(t, append(args, "-o", "text")...)
		if text != table || table == "" || code == ExitUsage {
			t.Errorf("%s -o text (exit %d, %s) differs from -o table:\n%s\n---\n%s", args[0], code, stderr, text, table)
		}
		_, def, _ := runCLI(t, args...)
		if def != table {
			t.Errorf("%s: the default output is not -o table", args[0])
		}
		code, _, stderr = runCLI(t, append(args, "-o", "txt")...)
		if code != ExitUsage || !strings.Contains(stderr, "expected one of table, json, yaml") {
			t.Errorf("%s -o txt: exit %d, %q", args[0], code, stderr)
		}
	}
}
