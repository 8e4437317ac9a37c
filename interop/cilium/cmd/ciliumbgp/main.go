// Command ciliumbgp runs Cilium's own BGP control plane outside the agent, against a real
// kube-apiserver: `agent` is one node's BGP control plane (pkg/bgp: its manager, reconcilers and
// GoBGP instance), `operator` is the operator's part that turns CiliumBGPClusterConfigs into
// CiliumBGPNodeConfigs (operator/pkg/bgp). It is the speaker of the interop harness; see
// interop/cilium/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(run()) }

func run() int {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ciliumbgp agent|operator --kubeconfig FILE [--node NAME] [--ipam MODE]")
		return 2
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the API server")
	node := fs.String("node", "", "agent: the node this agent runs as (its Node and CiliumNode)")
	ipam := fs.String("ipam", "cluster-pool", "agent: Cilium's IPAM mode (cluster-pool, kubernetes, multi-pool)")
	debug := fs.Bool("debug", false, "log at debug level")
	if err := fs.Parse(os.Args[2:]); err != nil {
		return 2
	}
	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "agent":
		if *node == "" || *kubeconfig == "" {
			fmt.Fprintln(os.Stderr, "agent needs --node and --kubeconfig")
			return 2
		}
		err = runAgent(ctx, log, *kubeconfig, *node, *ipam)
	case "operator":
		if *kubeconfig == "" {
			fmt.Fprintln(os.Stderr, "operator needs --kubeconfig")
			return 2
		}
		err = runOperator(ctx, log, *kubeconfig)
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q: agent or operator\n", os.Args[1])
		return 2
	}
	if err != nil {
		log.Error("ciliumbgp failed", "err", err)
		return 1
	}
	return 0
}
