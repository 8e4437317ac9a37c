package main

import (
	"strings"
	"testing"
)

// TestDemo runs the demo end to end: findings fire, the stale route of the
// decommissioned node appears, and everything resolves.
func TestDemo(t *testing.T) {
	var stdout, stderr strings.Builder
	code := execute(t.Context(), []string{"demo", "--pause", "200ms", "--http", "127.0.0.1:0"},
		strings.NewReader(""), &stdout, &stderr)
	out := stdout.String()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr.String())
	}
	for _, want := range []string{
		"FIRED    critical foreign-cidr     10.244.1.0/24   node2",
		"FIRED    critical stale-route      10.244.3.0/24   (no node)",
		"it belonged to node node4",
		"RESOLVED critical stale-route",
		"Every finding resolved",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
