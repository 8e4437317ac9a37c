// Package cli is routewarden's command line: the subcommands (run, demo,
// check, validate-config, roas, version), their flags, and the components
// run wires together. It neither handles signals nor exits: the command
// (cmd/routewarden) does, and the end-to-end tests run it in-process.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Exit codes shared by every subcommand (root's help and the README list them).
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitUsage    = 2 // bad usage or unreadable input: a flag, file, line or key is named
	ExitRuntime  = 3 // a failure while running: the Kubernetes API, a port, a peer; the cause is named
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// runtimeErr is a failure of the environment, not of the command line.
func runtimeErr(err error) error { return &exitError{code: ExitRuntime, err: err} }

// Execute runs the CLI, a development build, with the given arguments and
// streams and returns the exit code; tests call it directly.
func Execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return ExecuteWithReload(ctx, args, stdin, stdout, stderr, nil, Stamp{})
}

// ExecuteWithReload is Execute with a channel that asks `run` to reload its
// configuration (main sends on SIGHUP) and what the build stamped.
func ExecuteWithReload(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer,
	reload <-chan struct{}, s Stamp) int {
	cmd := newRootCmd(stdout, stderr, reload, s)
	cmd.SetArgs(args)
	cmd.SetIn(stdin)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.code != ExitFindings {
			fmt.Fprintln(stderr, "routewarden:", ee.err)
		}
		return ee.code
	}
	// Cobra's own errors: unknown flags, bad arguments.
	fmt.Fprintln(stderr, "routewarden:", err)
	fmt.Fprintln(stderr, "Run 'routewarden --help' for usage.")
	return ExitUsage
}
