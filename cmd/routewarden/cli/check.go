package cli

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/routewarden/routewarden/bgp/dump"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/report"
)

type checkFlags struct {
	cluster, routes, torRoutes, networkRanges    []string
	routesFormat, ipamMode, configFile, families string
	reportFlags
}

// checkRulesHelp lists the rules check judges, from the catalogue, and those
// it cannot.
func checkRulesHelp() string {
	var b strings.Builder
	b.WriteString("Rules (each one's runbook is docs/rules/RULE.md in the repository; the VIP rules judge when\n" +
		"the cluster files hold Services, filtered-at-tor needs --tor-routes):\n")
	var runOnly []string
	for _, r := range validator.Catalogue() {
		if !r.RunsIn(validator.ModeCheck) {
			runOnly = append(runOnly, string(r.ID))
			continue
		}
		b.WriteString(report.Wrap(fmt.Sprintf("%s (%s): %s", r.ID, r.Severity, r.Summary), "  ", 110))
	}
	fmt.Fprintf(&b, "A route belongs to the node owning its next hop (else its peer address, else its router ID).\n"+
		"Only routewarden run judges %s: a dump is one instant, with no time between a cluster\n"+
		"change and the routes following it.\n", strings.Join(runOnly, ", "))
	return b.String()
}

// checkFormats are check's -o values.
var checkFormats = []string{"table", "wide", "explain", "json", "yaml"}

func newCheckCmd(g *globalFlags) *cobra.Command {
	f := &checkFlags{}
	cmd := &cobra.Command{
		Use:   "check --cluster FILE… --routes FILE…",
		Short: "Audit a route dump against a cluster snapshot, once",
		Long: `check reads the cluster (kubectl get -o json or -o yaml output: Nodes, CiliumNodes, CiliumPodIPPools,
CiliumLoadBalancerIPPools and the kube-system/cilium-config ConfigMap; for the VIP rules also Services,
EndpointSlices and Cilium's BGP objects; a List, single objects or several YAML documents; several files are
merged) and route dumps from a router, and reports every route that does not
match the cluster.

Route formats (detected from the content with --routes-format auto):
  gobgp  gobgp global rib [-a ipv6] -j, gobgp neighbor ADDR adj-in -j
  frr    vtysh -c 'show bgp ipv4 unicast json' (or ipv6; 'json detail' adds communities), and
         'show bgp neighbor ADDR received-routes json' / 'advertised-routes json': these do not name
         the neighbor, give it after the file name: --routes received.json@ADDR (for advertised-routes,
         the sender's own address on the session; else the next hop stands for it)
  bird   birdc show route all
  mrt    MRT TABLE_DUMP_V2 files (RFC 6396) from gobgpd, BIRD, FRR or route collectors

` + checkRulesHelp() + `
Only the cluster's routes are judged: those a node (current or deleted) announces, and those inside a node's
CIDR, a pod range, a LoadBalancer pool or a VIP. The network's (a spine's default route, uplinks, the ToR's own
routes, other tenants, cluster.networkRanges and --network-ranges) are counted in a note. Attributes a dump
format does not carry (FRR's plain table has no communities) are not judged; a note names the command that shows
them. With --tor-routes, the --routes dumps (what the nodes sent) are judged for attribute-mismatch too.

Families: a dump covers the families it holds a route of (or those --families names). A family the cluster
allocates but no dump covers is not checked for missing routes; a note says so once, with the command that
dumps it. Output: -o table (one line per finding, sized to the terminal: $COLUMNS, else the terminal's
width, else 120), wide (every field, whole messages), explain (grouped by node, with why and what to do),
json, yaml. Nothing is logged on success unless -v.`,
		Example: `  kubectl get nodes,ciliumnodes,ciliumpodippools,ciliumloadbalancerippools -o json > cluster.json
  kubectl -n kube-system get configmap cilium-config -o yaml > cilium-config.yaml
  kubectl get services,endpointslices,ciliumbgpadvertisements -A -o json > services.json   # VIP rules
  vtysh -c 'show bgp ipv4 unicast json' > routes.json
  routewarden check --cluster cluster.json --cluster cilium-config.yaml --routes routes.json

  # JSON for scripts, fail only on critical findings
  routewarden check --cluster cluster.json --routes rib.mrt -o json --fail-on critical

  # what the ToR's policy dropped: the nodes' side (pre-policy) against the ToR's table (post-policy)
  routewarden check --cluster cluster.json --routes node-adj-out.json --tor-routes tor-routes.json

  # why each finding matters and what to do; the dump from standard input
  ssh tor1 "vtysh -c 'show bgp ipv4 unicast json'" | routewarden check --cluster cluster.json --routes - -o explain`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCheck(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.cluster, "cluster", nil, "kubectl -o json/yaml output (repeatable; - for stdin)")
	fl.StringArrayVar(&f.routes, "routes", nil, "route dump (repeatable; - for stdin; FILE@ADDR names the neighbor "+
		"of a dump that does not, such as FRR's received-routes json)")
	// No backticks in a flag's usage: pflag takes the first quoted word for the value's placeholder.
	fl.StringArrayVar(&f.torRoutes, "tor-routes", nil, "the ToR's own table after its policy (e.g. FRR's 'show bgp "+
		"ipv4 unicast json'; repeatable): the other rules judge it, and the --routes dumps, then the nodes' side "+
		"(pre-policy), are compared with it for filtered-at-tor")
	fl.StringVar(&f.routesFormat, "routes-format", "auto", "route dump format: auto, "+strings.Join(dump.Formats, ", "))
	fl.StringVar(&f.ipamMode, "ipam-mode", "", "Cilium IPAM mode, overriding cilium-config: "+
		strings.Join(config.IPAMModes, ", "))
	fl.StringVar(&f.families, "families", "", "families the route dumps cover, e.g. ipv4,ipv6 (default: those they hold)")
	fl.StringVar(&f.configFile, "config", "", "routewarden config file (rules, ranges)")
	fl.StringSliceVar(&f.networkRanges, "network-ranges", nil, "the network's ranges (uplinks, other tenants; "+
		"comma-separated or repeated), added to the config's cluster.networkRanges: a route there that no node "+
		"announces is counted, never judged")
	fl.StringVarP(&f.output, "output", "o", "table", "output: "+strings.Join(checkFormats, ", "))
	fl.StringVar(&f.failOn, "fail-on", "warning", "exit 1 when a finding is at least: info, warning, critical, never")
	return cmd
}

// parse checks every flag value at once and returns the parsed ones.
func (f *checkFlags) parse(g *globalFlags) (threshold, map[string]bool, error) {
	var errs []error
	g.validateLogFlags(&errs)
	thr := f.reportFlags.parse(&errs, checkFormats...)
	if err := choice("--routes-format", f.routesFormat, append([]string{"auto"}, dump.Formats...)); err != nil {
		errs = append(errs, err)
	}
	validateIPAMMode(&errs, f.ipamMode)
	for _, s := range f.networkRanges {
		if _, err := netip.ParsePrefix(s); err != nil {
			errs = append(errs, fmt.Errorf("--network-ranges: %q is not a CIDR (expected e.g. 10.255.0.0/16)", s))
		}
	}
	fams, err := parseFamilies(f.families)
	if err != nil {
		errs = append(errs, err)
	}
	if len(f.cluster) == 0 || len(f.routes) == 0 {
		errs = append(errs, errors.New("check needs at least one --cluster and one --routes file (see --help)"))
	}
	if stdin := slices.Concat(f.cluster, f.routes, f.torRoutes); len(stdin)-len(slices.DeleteFunc(stdin, isStdin)) > 1 {
		errs = append(errs, errors.New("standard input (-) can be read once: give the other inputs as files"))
	}
	return thr, fams, usageErrs(errs)
}

func runCheck(cmd *cobra.Command, g *globalFlags, f *checkFlags) error {
	thr, fams, err := f.parse(g)
	if err != nil {
		return err
	}
	log, err := g.oneShotLogger(cmd)
	if err != nil {
		return err
	}
	cfg, objs, cluster, err := readCluster(f.configFile, f.cluster, f.ipamMode)
	if err != nil {
		return err
	}
	if len(objs.Ignored) > 0 {
		log.Info().Str("kinds", objs.IgnoredSummary()).Msg("ignored objects of kinds routewarden does not read")
	}
	var rep report.Report
	if cluster.IPAM.ModeSource == "default" {
		rep.Notes = append(rep.Notes, "no cilium-config ConfigMap and no --ipam-mode: assumed Cilium's default "+
			"IPAM, cluster-pool (add `kubectl -n kube-system get configmap cilium-config -o yaml` as a --cluster file).")
	}
	set, err := readRouteSet(cmd, log, f.routes, f.routesFormat)
	if err != nil {
		return err
	}
	unjudged := unjudgedNotes(cluster, set)
	var policy validator.PolicyView // what the ToR's table shows beside the node-side dumps
	if len(f.torRoutes) > 0 {
		tor, err := readRouteSet(cmd, log, f.torRoutes, f.routesFormat)
		if err != nil {
			return err
		}
		// The ToR's post-policy table is judged; the node-side dumps say what it was sent.
		names := make([]string, len(f.torRoutes))
		for i, path := range f.torRoutes {
			names[i] = filepath.Base(path)
		}
		policy.Drops = validator.PolicyDrops(strings.Join(names, ", "), set.routes, tor.routes)
		// What the nodes sent is judged in full (attribute-mismatch), as without --tor-routes.
		policy.PrePolicy = set.routes
		validator.MarkPostPolicy(tor.routes)
		set = tor
		unjudged = slices.Compact(slices.Sorted(slices.Values(append(unjudged, unjudgedNotes(cluster, tor)...))))
	}
	if len(set.routes) == 0 && fams == nil {
		return usageErr("the route dumps (%s) hold no route at all: nothing to check. If the router really "+
			"receives none, say which families it should hold (--families ipv4,ipv6) and every CIDR is missing",
			strings.Join(f.routes, ", "))
	}
	covered, err := set.covered(fams)
	if err != nil {
		return usageErr("%v", err)
	}
	opts := cfg.ValidatorOptions()
	for _, s := range f.networkRanges {
		opts.NetworkRanges = append(opts.NetworkRanges, netip.MustParsePrefix(s).Masked())
	}
	opts.Now = time.Now()
	var notes []string
	rep.Result, notes = scopeToFamilies(validator.Validate(cluster, set.routes, policy, opts), covered, set.formats)
	rep.Notes = append(rep.Notes, notes...)
	rep.Notes = append(rep.Notes, unjudged...)
	if n := rep.Summary.NetworkRoutes; n > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d route(s) of the network (announced by no node, outside the "+
			"cluster's pod ranges, pools and allocations, or in cluster.networkRanges/--network-ranges): counted, "+
			"not judged.", n))
	}
	if err := writeReport(cmd, f.output, rep); err != nil {
		return runtimeErr(fmt.Errorf("writing output: %w", err))
	}
	if thr.trips(validator.Worst(rep.Findings)) {
		return &exitError{code: ExitFindings}
	}
	return nil
}

func isStdin(path string) bool { return path == "-" }

// readRouteSet reads route dump arguments (--routes, --tor-routes).
func readRouteSet(cmd *cobra.Command, log zerolog.Logger, paths []string, format string) (routeSet, error) {
	var set routeSet
	for _, path := range paths {
		start := time.Now()
		rs, got, err := readRoutes(cmd, path, format)
		if err != nil {
			return set, usageErr("%v", err)
		}
		log.Info().Str("file", path).Str("format", got).Int("routes", len(rs)).
			Stringer("took", time.Since(start).Round(time.Millisecond)).Msg("read routes")
		set.add(path, got, rs)
	}
	return set, nil
}

// readRoutes reads one --routes argument: a file, or standard input for -,
// with @ADDR after it naming the neighbor its paths came from (FRR's
// received-routes output does not say).
func readRoutes(cmd *cobra.Command, path, format string) ([]validator.Route, string, error) {
	path, peer := splitPeer(path)
	var opts []dump.Option
	if peer.IsValid() {
		opts = append(opts, dump.WithPeer(peer))
	}
	if path == "-" {
		return dump.ReadStream("(standard input)", cmd.InOrStdin(), format, opts...)
	}
	return dump.ReadFile(path, format, opts...)
}

// splitPeer splits "FILE@ADDR" into the file and the neighbor's address; a
// file whose own name ends so (it exists) is kept whole.
func splitPeer(arg string) (string, netip.Addr) {
	i := strings.LastIndexByte(arg, '@')
	if i < 0 {
		return arg, netip.Addr{}
	}
	peer, err := netip.ParseAddr(arg[i+1:])
	if err != nil {
		return arg, netip.Addr{}
	}
	if _, err := os.Stat(arg); err == nil {
		return arg, netip.Addr{}
	}
	return arg[:i], peer
}

func writeReport(cmd *cobra.Command, format string, rep report.Report) error {
	w := cmd.OutOrStdout()
	switch format {
	case "json", "yaml":
		if rep.Findings == nil {
			rep.Findings = []validator.Finding{}
		}
		return writeStructured(w, format, rep)
	case "wide":
		return report.Wide(w, rep)
	case "explain":
		return report.Explain(w, rep)
	}
	return report.Table(w, rep, terminalWidth(w))
}
