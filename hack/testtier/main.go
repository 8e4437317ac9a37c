// Command testtier runs the Go tests in two tiers, as hack/test.sh wants
// them: the quick tier first (go test -short: units, goldens, in-process
// BGP), so that a plain mistake fails in minutes, and then the rest: only the
// tests the quick tier skipped, or that skipped a subtest, each package's
// own, so that no test runs twice and every test runs once in full.
//
//	go run ./hack/testtier [go test flags] -- [packages]
//
// The flags go to both tiers (e.g. -timeout 40m); the packages default to
// ./... . With -run among the flags the rest re-runs what -run selects in
// full, as a plain go test would. A test that the quick tier shortens
// without skipping would escape the rest: such a test must skip what it
// leaves out (a test of its own for it), and TestShortOnlySkips in
// internal/arch holds every test to that.
//
// It prints what go test prints without -v: a line per package, and the
// output of what failed; then how long each tier took and how many tests it
// ran. The exit code is go test's: non-zero when a tier failed.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	flags, pkgs := splitArgs(args)
	start := time.Now()
	quick, code := goTest(append(append([]string{"-short", "-count=1"}, flags...), pkgs...), stdout, stderr)
	fmt.Fprintf(stdout, "testtier: quick tier (-short): %d tests in %s, %d skipped for the rest\n",
		quick.ran, time.Since(start).Round(time.Second), quick.skippedTests())
	if code != 0 {
		fmt.Fprintln(stderr, "testtier: the quick tier failed: the rest does not run")
		return code
	}
	start = time.Now()
	if hasRun(flags) {
		rest, code := goTest(append(append([]string{"-count=1"}, flags...), pkgs...), stdout, stderr)
		fmt.Fprintf(stdout, "testtier: -run given: %d tests in full in %s\n", rest.ran, time.Since(start).Round(time.Second))
		return code
	}
	runs := quick.rest()
	if len(runs) == 0 {
		fmt.Fprintln(stdout, "testtier: the quick tier skipped nothing: no rest to run")
		return 0
	}
	ran, code := runRest(runs, flags, stdout, stderr)
	fmt.Fprintf(stdout, "testtier: the rest: %d tests of %d packages in %s\n", ran, len(runs),
		time.Since(start).Round(time.Second))
	return code
}

// splitArgs splits testtier's arguments at "--" into go test flags and
// packages (./... when none).
func splitArgs(args []string) (flags, pkgs []string) {
	i := slices.Index(args, "--")
	if i < 0 {
		return args, []string{"./..."}
	}
	flags, pkgs = args[:i], args[i+1:]
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	return flags, pkgs
}

// hasRun reports whether the flags select tests (-run).
func hasRun(flags []string) bool {
	return slices.ContainsFunc(flags, func(f string) bool {
		return f == "-run" || f == "--run" || strings.HasPrefix(f, "-run=") || strings.HasPrefix(f, "--run=")
	})
}

// goTest runs go test -json with args, prints what go test prints without
// -v, and returns what ran and go test's exit code.
func goTest(args []string, stdout, stderr io.Writer) (*tier, int) {
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintf(stderr, "testtier: %v\n", err)
		return newTier(), 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "testtier: starting go test: %v\n", err)
		return newTier(), 2
	}
	t := newTier()
	readErr := t.read(out, stdout)
	err = cmd.Wait()
	if readErr != nil {
		fmt.Fprintf(stderr, "testtier: reading go test -json: %v\n", readErr)
		return t, 2
	}
	if err != nil {
		if exit, ok := err.(*exec.ExitError); ok {
			return t, exit.ExitCode()
		}
		fmt.Fprintf(stderr, "testtier: go test: %v\n", err)
		return t, 2
	}
	return t, 0
}
