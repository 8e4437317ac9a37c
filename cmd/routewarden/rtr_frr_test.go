package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/wait"
)

// rovFRR is FRR's bgpd doing route origin validation as the ToR, with
// Debian's frr-rpki-rtrlib module, both families: a route-map denies what
// validates Invalid against routewarden's RTR server. Soft reconfiguration
// inbound keeps what was denied, so the test can tell rejected from never
// received, and softIn can run the policy over it again: bgpd 8.4 re-runs it
// on a ROA change only for prefixes with a path in its table, so a denied
// route becomes Valid only through softIn (docs/rtr.md). No zebra: nothing
// reaches the kernel.
type rovFRR struct {
	addr  netip.Addr
	port  int32
	dir   string
	vtysh string
}

func frrROVConfig(dir string, addr netip.Addr, rtrAddr string, nodes []uint32) string {
	host, rtrPort, _ := strings.Cut(rtrAddr, ":")
	var b strings.Builder
	fmt.Fprintf(&b, `hostname tor
log file %s debugging
debug rpki
rpki
 rpki polling_period 3600
 rpki cache %s %s preference 1
exit
route-map ROV deny 10
 match rpki invalid
exit
route-map ROV permit 20
exit
router bgp %d
 bgp router-id %s
 no bgp ebgp-requires-policy
`, filepath.Join(dir, "bgpd.log"), host, rtrPort, rovToRASN, addr)
	for i, as := range nodes {
		fmt.Fprintf(&b, " neighbor 127.0.1.1%[1]d remote-as %[2]d\n neighbor 127.0.1.1%[1]d passive\n"+
			" neighbor 127.0.1.1%[1]d ebgp-multihop 255\n", i+1, as)
	}
	for _, af := range []string{"ipv4", "ipv6"} {
		fmt.Fprintf(&b, " address-family %s unicast\n", af)
		for i := range nodes {
			fmt.Fprintf(&b, "  neighbor 127.0.1.1%[1]d activate\n  neighbor 127.0.1.1%[1]d soft-reconfiguration inbound\n"+
				"  neighbor 127.0.1.1%[1]d route-map ROV in\n", i+1)
		}
		b.WriteString(" exit-address-family\n")
	}
	b.WriteString("exit\n")
	return b.String()
}

// startROVFRR runs bgpd with the rpki module until the test ends.
func startROVFRR(t *testing.T, addr netip.Addr, port int32, rtrAddr string, nodes []uint32) *rovFRR {
	t.Helper()
	bgpd := testam.RequireBinary(t, "BGPD", "/usr/lib/frr/bgpd", "frr")
	testam.RequireBinary(t, "FRR_RPKI_MODULE", "/usr/lib/x86_64-linux-gnu/frr/modules/bgpd_rpki.so", "frr-rpki-rtrlib")
	r := &rovFRR{addr: addr, port: port, dir: t.TempDir(), vtysh: testam.RequireBinary(t, "VTYSH", "/usr/bin/vtysh", "frr")}
	conf := filepath.Join(r.dir, "bgpd.conf")
	if err := os.WriteFile(conf, []byte(frrROVConfig(r.dir, addr, rtrAddr, nodes)), 0o644); err != nil {
		t.Fatal(err)
	}
	startToRDaemon(t, filepath.Join(r.dir, "bgpd.out"), func() string {
		state, _ := r.vty("show rpki cache-connection", "show rpki prefix-table", "show bgp summary")
		log, _ := os.ReadFile(filepath.Join(r.dir, "bgpd.log"))
		return fmt.Sprintf("FRR:\n%s\nbgpd log (end):\n%s", state, tail(string(log), 6000))
	}, bgpd, "-M", "rpki", "--no_zebra", "--skip_runas", "-f", conf, "-i", filepath.Join(r.dir, "bgpd.pid"),
		"--vty_socket", r.dir, "-P", "0", "-l", addr.String(), "-p", fmt.Sprint(port))
	wait.For(t, "bgpd to answer vtysh", 30*time.Second, func() error {
		_, err := r.vty("show bgp summary json")
		return err
	})
	return r
}

func (r *rovFRR) vty(cmds ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	argv := []string{"--vty_socket", r.dir, "-d", "bgpd"}
	for _, c := range cmds {
		argv = append(argv, "-c", c)
	}
	out, err := exec.CommandContext(ctx, r.vtysh, argv...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("vtysh %s: %w: %s", strings.Join(cmds, "; "), err, out)
	}
	return string(out), nil
}

func (r *rovFRR) listen() (netip.Addr, int32) { return r.addr, r.port }

// state lists the routes bgpd accepted and those it received from the nodes
// and denied, as "prefix from nodeI", both families.
func (r *rovFRR) state(nodes int) (accepted, rejected []string, err error) {
	for _, af := range []string{"ipv4", "ipv6"} {
		var table struct {
			Routes map[string][]struct {
				PeerID string `json:"peerId"`
			} `json:"routes"`
		}
		out, err := r.vty("show bgp " + af + " unicast json")
		if err == nil {
			err = json.Unmarshal([]byte(out), &table)
		}
		if err != nil {
			return nil, nil, err
		}
		var acc []string
		for p, paths := range table.Routes {
			for _, path := range paths {
				acc = append(acc, p+" from node"+strings.TrimPrefix(path.PeerID, "127.0.1.1"))
			}
		}
		accepted = append(accepted, acc...)
		for i := 1; i <= nodes; i++ {
			var received struct {
				Routes map[string]json.RawMessage `json:"receivedRoutes"`
			}
			out, err := r.vty(fmt.Sprintf("show bgp %s unicast neighbors 127.0.1.1%d received-routes json", af, i))
			if err == nil {
				err = json.Unmarshal([]byte(out), &received)
			}
			if err != nil {
				return nil, nil, err
			}
			for p := range received.Routes {
				if g := fmt.Sprintf("%s from node%d", p, i); !slices.Contains(acc, g) {
					rejected = append(rejected, g)
				}
			}
		}
	}
	slices.Sort(accepted)
	slices.Sort(rejected)
	return accepted, rejected, nil
}

// softIn re-runs the inbound policy over what the nodes sent (kept by
// soft-reconfiguration inbound: nothing is asked of them), both families:
// on FRR 8.4 the only way a denied route is looked at again (docs/rtr.md).
func (r *rovFRR) softIn() error {
	_, err := r.vty("clear bgp ipv4 unicast * soft in", "clear bgp ipv6 unicast * soft in")
	return err
}
