// Command routewarden checks that the routes a network receives from Cilium
// nodes match what the Kubernetes cluster allocated.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/routewarden/routewarden/cmd/routewarden/cli"
)

// Stamped at build time by make build and the Dockerfile:
// -ldflags "-X main.version=… -X main.commit=… -X main.date=…".
var (
	version = ""
	commit  = ""
	date    = ""
)

func main() { os.Exit(run()) }

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
	return cli.ExecuteWithReload(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, reload,
		cli.Stamp{Version: version, Commit: commit, Date: date})
}
