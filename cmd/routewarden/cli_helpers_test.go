package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/cmd/routewarden/cli"
)

// The end-to-end tests run the CLI in-process (cli.Execute), as main does;
// these are the folders and the helper its own tests use too.
const (
	vcDir       = "../../testdata/validate-config"
	scenarioDir = "../../testdata/scenarios"
)

// runCLI runs the CLI with args, JSON logs at warn level, and returns its
// exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Execute(context.Background(), append(args, "--log-format", "json", "--log-level", "warn"),
		strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}
