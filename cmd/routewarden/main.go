// Command routewarden checks that the routes a network receives from Cilium
// nodes match what the Kubernetes cluster allocated.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(run()) }

// Exit codes shared by every subcommand (root's help and the README list them).
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2 // bad usage or unreadable input: a flag, file, line or key is named
	exitRuntime  = 3 // a failure while running: the Kubernetes API, a port, a peer; the cause is named
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
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// runtimeErr is a failure of the environment, not of the command line.
func runtimeErr(err error) error { return &exitError{code: exitRuntime, err: err} }

func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	reload := make(chan struct{}, 1)
	go func() {
		for range hup {
			select {
			case reload <- struct{}{}:
			default:
			}
		}
	}()
	return executeWithReload(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, reload)
}

// execute runs the CLI with the given arguments and streams; tests call it directly.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return executeWithReload(ctx, args, stdin, stdout, stderr, nil)
}

// executeWithReload is execute with a channel that asks `run` to reload its
// configuration (main sends on SIGHUP).
func executeWithReload(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer,
	reload <-chan struct{}) int {
	cmd := newRootCmd(stdout, stderr, reload)
	cmd.SetArgs(args)
	cmd.SetIn(stdin)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.code != exitFindings {
			fmt.Fprintln(stderr, "routewarden:", ee.err)
		}
		return ee.code
	}
	// Cobra's own errors: unknown flags, bad arguments.
	fmt.Fprintln(stderr, "routewarden:", err)
	fmt.Fprintln(stderr, "Run 'routewarden --help' for usage.")
	return exitUsage
}
