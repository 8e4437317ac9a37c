package cli

import (
	"io"
	"os"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type globalFlags struct {
	logLevel, logFormat string
	verbose             bool
}

var (
	logLevels  = []string{"trace", "debug", "info", "warn", "error"}
	logFormats = []string{"auto", "console", "json"}
)

func newRootCmd(stdout, stderr io.Writer, reload <-chan struct{}, s Stamp) *cobra.Command {
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

Exit codes: 0 nothing at or above --fail-on, 1 findings, 2 bad usage or unreadable input (the message
says which flag, file, line or key), 3 a runtime failure (run: the Kubernetes API, a port, a peer; the message
names the cause).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(s).Version,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", "info",
		"log level: trace, debug, info, warn, error (check and validate-config: warn unless -v)")
	root.PersistentFlags().StringVar(&g.logFormat, "log-format", "auto",
		"log format: auto (console on a terminal, JSON otherwise), console, json")
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false,
		"check and validate-config: log what was read (info level); they log nothing on success otherwise")
	root.AddCommand(newCheckCmd(g), newValidateConfigCmd(g), newRunCmd(g, reload), newDemoCmd(g), newROAsCmd(g),
		newVersionCmd(s))
	return root
}

// validateLogFlags validates --log-level and --log-format, adding problems to errs.
func (g *globalFlags) validateLogFlags(errs *[]error) {
	for _, f := range []struct {
		name, value string
		valid       []string
	}{{"--log-level", g.logLevel, logLevels}, {"--log-format", g.logFormat, logFormats}} {
		if err := choice(f.name, f.value, f.valid); err != nil {
			*errs = append(*errs, err)
		}
	}
}

// oneShotLogger is the logger of a command that prints a report: quiet (warn)
// on success unless -v or --log-level asks for more.
func (g *globalFlags) oneShotLogger(cmd *cobra.Command) (zerolog.Logger, error) {
	if !cmd.Flags().Changed("log-level") {
		g.logLevel = "warn"
		if g.verbose {
			g.logLevel = "info"
		}
	}
	return g.logger(cmd.ErrOrStderr())
}

// logger builds the zerolog logger writing to stderr.
func (g *globalFlags) logger(stderr io.Writer) (zerolog.Logger, error) {
	var errs []error
	g.validateLogFlags(&errs)
	if err := usageErrs(errs); err != nil {
		return zerolog.Nop(), err
	}
	level, _ := zerolog.ParseLevel(g.logLevel)
	w := stderr
	switch g.logFormat {
	case "console":
		w = zerolog.ConsoleWriter{Out: stderr, TimeFormat: "15:04:05"}
	case "auto":
		if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			w = zerolog.ConsoleWriter{Out: stderr, TimeFormat: "15:04:05"}
		}
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger(), nil
}
