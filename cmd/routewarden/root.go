package main

import (
	"io"
	"os"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

type globalFlags struct {
	logLevel, logFormat string
}

func newRootCmd(stdout, stderr io.Writer, reload <-chan struct{}) *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "routewarden",
		Short: "Check that the routes your network receives match what your Cilium cluster allocated",
		Long: `routewarden compares the BGP routes Cilium nodes announce with the cluster's truth (Nodes,
CiliumNodes, IPAM) and reports stale routes of decommissioned nodes, nodes announcing CIDRs that are not
theirs, CIDRs nobody announces, conflicts and leaks.

  routewarden demo             replay the incident live on 127.0.0.1 (start here)
  routewarden run              the collector: a passive BGP peer validating live, alerting via Alertmanager
  routewarden check            audit a route dump against kubectl output, once
  routewarden validate-config  lint routewarden's config and Cilium's BGP objects
  routewarden roas             print the ROAs the RTR server serves, from kubectl output

Exit codes: 0 nothing at or above --fail-on, 1 findings, 2 bad usage or unreadable input.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	root.PersistentFlags().StringVar(&g.logFormat, "log-format", "auto",
		"log format: auto (console on a terminal, JSON otherwise), console, json")
	root.AddCommand(newCheckCmd(g), newValidateConfigCmd(g), newRunCmd(g, reload), newDemoCmd(g), newROAsCmd(g))
	return root
}

// logger builds the zerolog logger writing to stderr.
func (g *globalFlags) logger(stderr io.Writer) (zerolog.Logger, error) {
	level, err := zerolog.ParseLevel(g.logLevel)
	if err != nil {
		return zerolog.Nop(), usageErr("--log-level %q: expected debug, info, warn or error", g.logLevel)
	}
	w := stderr
	switch g.logFormat {
	case "console":
		w = zerolog.ConsoleWriter{Out: stderr, TimeFormat: "15:04:05"}
	case "json":
	case "auto":
		if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			w = zerolog.ConsoleWriter{Out: stderr, TimeFormat: "15:04:05"}
		}
	default:
		return zerolog.Nop(), usageErr("--log-format %q: expected auto, console or json", g.logFormat)
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger(), nil
}
