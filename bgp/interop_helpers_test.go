package bgp

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/testam"
)

// The interop topology: GoBGP speakers play Cilium nodes (AS 65010) from
// 127.0.1.x and peer with a real ToR daemon (AS 65000) listening on its own
// loopback address; routewarden is an iBGP neighbor of the ToR. Nothing
// touches the kernel: FRR's bgpd runs without zebra, BIRD without kernel or
// device protocols, and every session stays on 127.0.0.0/8.
const (
	interopASN     = 65000
	interopNodeASN = 65010
)

// tor is a running ToR daemon: the nodes connect to addr:port, and it
// connects to routewarden from addr.
type tor struct {
	name string
	addr netip.Addr
	port int32
	d    *daemon
	log  string // the daemon's log file
	// state is what the daemon says about its sessions and routes, for failures.
	state func() string
}

// torSetup is what a ToR needs to know: where it listens and where
// routewarden listens.
type torSetup struct {
	dir           string
	addr          netip.Addr
	port          int32
	nodes         netip.Prefix
	collectorAddr netip.Addr
	collectorPort int32
}

// logOnFailure dumps the ToR's sessions and routes when the test fails. Call
// it after starting the speakers: cleanups run last-registered first, so it
// runs while they are still up.
func (r *tor) logOnFailure(t testing.TB) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s state:\n%s\n%s log (end):\n%s", r.name, r.state(), r.name, tail(r.log, 20000))
		}
	})
}

// frrExample is the FRR ToR snippet routewarden ships; the test runs it.
const frrExample = "../deploy/examples/frr-tor.conf"

// frrConfig is deploy/examples/frr-tor.conf moved onto loopback addresses:
// the ToR (router ID and update source 10.0.0.1) on s.addr, the nodes' listen
// range 10.0.0.0/24 on s.nodes and routewarden (10.0.0.250) on
// s.collectorAddr. Appended, test only: routewarden's port, a short connect
// timer, and a log with every update sent (and its ADD-PATH ID).
func frrConfig(s torSetup) (string, error) {
	b, err := os.ReadFile(frrExample)
	if err != nil {
		return "", err
	}
	conf := string(b)
	for _, sub := range []struct{ re, with string }{
		{`\b10\.0\.0\.250\b`, s.collectorAddr.String()},
		{`\b10\.0\.0\.1\b`, s.addr.String()},
		{`\b10\.0\.0\.0/24\b`, s.nodes.String()},
		{`(?m)^router bgp 65000$`, fmt.Sprintf("router bgp %d", interopASN)},
		{`(?m)^ neighbor NODES remote-as 65010$`, fmt.Sprintf(" neighbor NODES remote-as %d", interopNodeASN)},
	} {
		re := regexp.MustCompile(sub.re)
		if !re.MatchString(conf) {
			return "", fmt.Errorf("%s no longer matches %s: update the interop test", frrExample, sub.re)
		}
		conf = re.ReplaceAllLiteralString(conf, sub.with)
	}
	rw := s.collectorAddr
	conf += fmt.Sprintf(`!
! test only
log file %s debugging
debug bgp updates
debug bgp neighbor-events
router bgp %d
 neighbor %s port %d
 neighbor %s timers connect 1
exit
`, filepath.Join(s.dir, "bgpd.log"), interopASN, rw, s.collectorPort, rw)
	return conf, nil
}

// startFRR runs FRR's bgpd as the ToR: no zebra (nothing reaches the kernel),
// listening on s.addr:s.port only, no TCP vty, queried with vtysh over a
// private vty socket directory.
func startFRR(t testing.TB, s torSetup) *tor {
	t.Helper()
	bgpd := testam.RequireBinary(t, "BGPD", "/usr/lib/frr/bgpd", "frr")
	vtysh := testam.RequireBinary(t, "VTYSH", "/usr/bin/vtysh", "frr")
	text, err := frrConfig(s)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(s.dir, "bgpd.conf")
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, "bgpd", filepath.Join(s.dir, "bgpd.out"), bgpd,
		"--no_zebra", "--skip_runas", "-f", conf, "-i", filepath.Join(s.dir, "bgpd.pid"),
		"--vty_socket", s.dir, "-P", "0", "-l", s.addr.String(), "-p", fmt.Sprint(s.port))
	vty := func(cmds ...string) (string, error) {
		argv := []string{vtysh, "--vty_socket", s.dir, "-d", "bgpd"}
		for _, c := range cmds {
			argv = append(argv, "-c", c)
		}
		return command(argv...)
	}
	r := &tor{name: "frr", addr: s.addr, port: s.port, d: d, log: filepath.Join(s.dir, "bgpd.log"), state: func() string {
		rw := s.collectorAddr.String()
		out, err := vty("show bgp summary", "show bgp ipv4 unicast",
			"show bgp ipv4 unicast neighbors "+rw+" advertised-routes",
			"show bgp ipv6 unicast neighbors "+rw+" advertised-routes")
		return fmt.Sprintf("%s%v", out, errOrEmpty(err))
	}}
	waitDaemon(t, d, "bgpd to answer vtysh", func() error {
		_, err := vty("show bgp summary json")
		return err
	})
	return r
}

// birdConfig is the BIRD 2 equivalent of deploy/examples/frr-tor.conf. The
// nodes' routes resolve their next hops recursively in IGP tables that stay
// empty: they are kept (as unreachable) and installed nowhere.
func birdConfig(s torSetup) string {
	channel := func(af string) string {
		return fmt.Sprintf(`	%s {
		import none;	# routewarden never sends anything; refuse it anyway
		export all;
		add paths tx;	# every path of a prefix, not only the best
		next hop keep;	# the nodes' next hops (the iBGP default, made explicit)
	};
`, af)
	}
	return fmt.Sprintf(`log "%s" all;
router id %s;

ipv4 table igp4;
ipv6 table igp6;

template bgp nodes {
	local %s port %d as %d;
	strict bind on;
	multihop;	# test only: eBGP over lo from 127.0.1.x, no device protocol
	ipv4 { import all; export none; gateway recursive; igp table igp4; };
	ipv6 { import all; export none; gateway recursive; igp table igp6; };
}

protocol bgp node from nodes {
	neighbor range %s as %d;
	dynamic name "node";
}

protocol bgp routewarden {
	description "routewarden";
	local %s port %d as %d;
	neighbor %s port %d as %d;
	strict bind on;
	connect delay time 1;	# test only: connect at once
	connect retry time 1;
%s%s}
`, filepath.Join(s.dir, "bird.log"), s.addr, s.addr, s.port, interopASN, s.nodes, interopNodeASN,
		s.addr, s.port, interopASN, s.collectorAddr, s.collectorPort, interopASN, channel("ipv4"), channel("ipv6"))
}

// startBIRD runs BIRD 2 as the ToR with its own control socket; there is no
// kernel or device protocol.
func startBIRD(t testing.TB, s torSetup) *tor {
	t.Helper()
	bird := testam.RequireBinary(t, "BIRD", "/usr/sbin/bird", "bird2")
	birdc := testam.RequireBinary(t, "BIRDC", "/usr/sbin/birdc", "bird2")
	conf := filepath.Join(s.dir, "bird.conf")
	if err := os.WriteFile(conf, []byte(birdConfig(s)), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(s.dir, "bird.ctl")
	d := startDaemon(t, "bird", filepath.Join(s.dir, "bird.out"), bird,
		"-f", "-c", conf, "-s", sock, "-P", filepath.Join(s.dir, "bird.pid"))
	ctl := func(args ...string) (string, error) { return command(append([]string{birdc, "-s", sock}, args...)...) }
	r := &tor{name: "bird", addr: s.addr, port: s.port, d: d, log: filepath.Join(s.dir, "bird.log"), state: func() string {
		var b strings.Builder
		for _, c := range [][]string{{"show", "protocols", "all"}, {"show", "route", "all"},
			{"show", "route", "export", "routewarden"}} {
			out, err := ctl(c...)
			fmt.Fprintf(&b, "birdc %s:\n%s%v\n", strings.Join(c, " "), out, errOrEmpty(err))
		}
		return b.String()
	}}
	waitDaemon(t, d, "bird to answer birdc", func() error {
		out, err := ctl("show", "status")
		if err == nil && !strings.Contains(out, "Daemon is up and running") {
			err = fmt.Errorf("not up: %s", out)
		}
		return err
	})
	return r
}

func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// waitDaemon polls cond, failing at once when the daemon has exited.
func waitDaemon(t testing.TB, d *daemon, what string, cond func() error) {
	t.Helper()
	var exited error
	interopWait(t, what, func() error {
		if err := d.alive(); err != nil {
			exited = err
			return nil
		}
		return cond()
	})
	if exited != nil {
		t.Fatal(exited)
	}
}
