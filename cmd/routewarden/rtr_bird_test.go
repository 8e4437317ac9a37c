package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/wait"
)

// rovToR is a real BIRD 2 doing route origin validation as the ToR: one BGP
// protocol per node (its own AS), both families' imports filtered by
// roa_check against the ROA tables its rpki protocol fills from
// routewarden's RTR server. Import
// tables keep what was rejected, so BIRD re-evaluates it when the ROAs
// change (BIRD reloads such channels automatically) and the test can tell
// rejected from never received. No kernel or device protocol: nothing leaves
// the process but sessions on 127.0.0.0/8.
type rovToR struct {
	addr netip.Addr
	port int32
	sock string
	ctl  string
}

const rovToRASN = 65000

// birdROVConfig is the ToR's config, docs/rtr.md's BIRD recipe: nodes[i] is
// node i+1's AS; both families are validated, each against its own ROA table.
func birdROVConfig(dir string, addr netip.Addr, port int32, rtrAddr string, nodes []uint32) string {
	host, rtrPort, _ := strings.Cut(rtrAddr, ":")
	var b strings.Builder
	fmt.Fprintf(&b, `log "%s" all;
router id %s;
ipv4 table igp4;
ipv6 table igp6;
roa4 table rtr4;
roa6 table rtr6;

protocol rpki routewarden {
	roa4 { table rtr4; };
	roa6 { table rtr6; };
	remote %s port %s;
	retry keep 1;	# test only: reconnect at once; refresh and expire come from routewarden
}

filter rov4 {
	if roa_check(rtr4, net, bgp_path.last) = ROA_INVALID then reject;
	accept;
}

filter rov6 {
	if roa_check(rtr6, net, bgp_path.last) = ROA_INVALID then reject;
	accept;
}
`, filepath.Join(dir, "bird.log"), addr, host, rtrPort)
	for i, as := range nodes {
		fmt.Fprintf(&b, `
protocol bgp node%d {
	local %s port %d as %d;
	neighbor 127.0.1.1%d as %d;
	passive on;
	strict bind on;
	multihop;
	ipv4 { import table on; import filter rov4; export none; gateway recursive; igp table igp4; };
	ipv6 { import table on; import filter rov6; export none; gateway recursive; igp table igp6; };
}
`, i+1, addr, port, rovToRASN, i+1, as)
	}
	return b.String()
}

// startROVToR runs BIRD with that config until the test ends.
func startROVToR(t *testing.T, addr netip.Addr, port int32, rtrAddr string, nodes []uint32) *rovToR {
	t.Helper()
	bird := testam.RequireBinary(t, "BIRD", "/usr/sbin/bird", "bird2")
	r := &rovToR{addr: addr, port: port, ctl: testam.RequireBinary(t, "BIRDC", "/usr/sbin/birdc", "bird2")}
	dir := t.TempDir()
	conf := filepath.Join(dir, "bird.conf")
	if err := os.WriteFile(conf, []byte(birdROVConfig(dir, addr, port, rtrAddr, nodes)), 0o644); err != nil {
		t.Fatal(err)
	}
	r.sock = filepath.Join(dir, "bird.ctl")
	startToRDaemon(t, filepath.Join(dir, "bird.out"), func() string {
		state, _ := r.birdc("show", "protocols", "all")
		log, _ := os.ReadFile(filepath.Join(dir, "bird.log"))
		return fmt.Sprintf("BIRD protocols:\n%s\nBIRD log (end):\n%s", state, tail(string(log), 6000))
	}, bird, "-f", "-c", conf, "-s", r.sock, "-P", filepath.Join(dir, "bird.pid"))
	wait.For(t, "BIRD to answer birdc", 30*time.Second, func() error {
		_, err := r.birdc("show", "status")
		return err
	})
	return r
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// startToRDaemon runs a routing daemon in its own process group, its output
// in out, until the test ends (killed with the test binary too); state says
// what it knows, for a failed test.
func startToRDaemon(t *testing.T, out string, state func() string, argv ...string) {
	t.Helper()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", argv[0], err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(state())
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		f.Close()
	})
}

func (r *rovToR) birdc(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, r.ctl, append([]string{"-s", r.sock}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("birdc %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// routeLine is "prefix ... [protocol ..." in birdc's route listing; a line
// without the prefix continues the previous one's.
var routeLine = regexp.MustCompile(`^(\S+/\d+)?\s+.*?\[(\w+)[ \]]`)

// routes lists a birdc route listing as "prefix from protocol", sorted.
func (r *rovToR) routes(args ...string) ([]string, error) {
	out, err := r.birdc(append([]string{"show", "route"}, args...)...)
	if err != nil {
		return nil, err
	}
	var got []string
	prefix := ""
	for _, line := range strings.Split(out, "\n") {
		m := routeLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if m[1] != "" {
			prefix = m[1]
		}
		got = append(got, prefix+" from "+m[2])
	}
	slices.Sort(got)
	return got, nil
}

func (r *rovToR) listen() (netip.Addr, int32) { return r.addr, r.port }

// state lists what BIRD accepted, and what the nodes sent that it did not
// accept: received (in a node's import table) and not in its routing table;
// both families.
func (r *rovToR) state(nodes int) (accepted, rejected []string, err error) {
	for _, fam := range []string{"4", "6"} {
		acc, err := r.routes("table", "master"+fam)
		if err != nil {
			return nil, nil, err
		}
		accepted = append(accepted, acc...)
		for i := 1; i <= nodes; i++ {
			got, err := r.routes("import", "table", fmt.Sprintf("node%d.ipv%s", i, fam))
			if err != nil {
				return nil, nil, err
			}
			for _, g := range got {
				if !slices.Contains(acc, g) {
					rejected = append(rejected, g)
				}
			}
		}
	}
	slices.Sort(accepted)
	slices.Sort(rejected)
	return accepted, rejected, nil
}
