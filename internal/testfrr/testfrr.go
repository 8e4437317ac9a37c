// Package testfrr runs Debian's FRR bgpd, with its BMP module, as a ToR in
// tests (a test kit, outside the product).
package testfrr

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/wait"
)

// BMPConfig is a ToR (AS 65000 on torAddr) accepting the nodes (AS 65010)
// and monitoring them over BMP, pre- and post-policy, to the station.
func BMPConfig(dir string, torAddr netip.Addr, stationPort uint32, nodes ...netip.Addr) string {
	var b strings.Builder
	fmt.Fprintf(&b, "log file %s debugging\ndebug bmp\n!\nrouter bgp 65000\n bgp router-id %s\n", filepath.Join(dir, "bgpd.log"), torAddr)
	b.WriteString(" no bgp ebgp-requires-policy\n no bgp network import-check\n")
	for _, n := range nodes {
		fmt.Fprintf(&b, " neighbor %s remote-as 65010\n neighbor %s passive\n neighbor %s ebgp-multihop 255\n", n, n, n)
	}
	for _, af := range []string{"ipv4", "ipv6"} {
		fmt.Fprintf(&b, " address-family %s unicast\n", af)
		for _, n := range nodes {
			fmt.Fprintf(&b, "  neighbor %s activate\n", n)
		}
		b.WriteString(" exit-address-family\n")
	}
	fmt.Fprintf(&b, ` bmp targets station
  bmp connect 127.0.0.1 port %d min-retry 100 max-retry 1000
  bmp monitor ipv4 unicast pre-policy
  bmp monitor ipv4 unicast post-policy
  bmp monitor ipv6 unicast pre-policy
  bmp monitor ipv6 unicast post-policy
 exit
exit
`, stationPort)
	return b.String()
}

// StartBGPD runs FRR's bgpd with the bmp module, without zebra, listening on
// torAddr:port only, as an unprivileged daemon in its own process group.
func StartBGPD(t *testing.T, torAddr netip.Addr, port int32, conf string) (vty func(...string) (string, error)) {
	t.Helper()
	bgpd := testam.RequireBinary(t, "BGPD", "/usr/lib/frr/bgpd", "frr")
	vtysh := testam.RequireBinary(t, "VTYSH", "/usr/bin/vtysh", "frr")
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/frr/modules/bgpd_bmp.so"); err != nil {
		t.Skipf("FRR's BMP module is not installed: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bgpd.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "bgpd.out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bgpd, "-M", "bmp", "--no_zebra", "--skip_runas", "-f", filepath.Join(dir, "bgpd.conf"),
		"-i", filepath.Join(dir, "bgpd.pid"), "--vty_socket", dir, "-P", "0", "-l", torAddr.String(), "-p", fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting bgpd: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			for _, f := range []string{"bgpd.out", "bgpd.log"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				t.Logf("%s (end):\n%s", f, b[max(0, len(b)-6000):])
			}
		}
	})
	vty = func(cmds ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		argv := []string{"--vty_socket", dir, "-d", "bgpd"}
		for _, c := range cmds {
			argv = append(argv, "-c", c)
		}
		out, err := exec.CommandContext(ctx, vtysh, argv...).CombinedOutput()
		return string(out), err
	}
	wait.For(t, "bgpd to answer vtysh", 30*time.Second, func() error {
		select {
		case <-done:
			t.Fatal("bgpd exited")
		default:
		}
		_, err := vty("show bgp summary json")
		return err
	})
	return vty
}

// PrePolicy adds soft-reconfiguration inbound for the nodes to conf: FRR 8.4
// sends BMP pre-policy routes from the Adj-RIB-In it keeps only then
// (FRRouting/frr#10240).
func PrePolicy(conf string, nodes ...netip.Addr) string {
	for _, n := range nodes {
		activate := fmt.Sprintf("  neighbor %s activate\n", n)
		conf = strings.ReplaceAll(conf, activate, activate+fmt.Sprintf("  neighbor %s soft-reconfiguration inbound\n", n))
	}
	return conf
}

// InboundPrefixList applies prefix-list list (permitting everything until
// Deny adds a line) to node's IPv4 routes in conf.
func InboundPrefixList(conf string, node netip.Addr, list string) string {
	conf = strings.Replace(conf, "router bgp ", fmt.Sprintf("ip prefix-list %s seq 100 permit any\n!\nrouter bgp ", list), 1)
	activate := fmt.Sprintf("  neighbor %s activate\n", node)
	return strings.Replace(conf, activate, activate+fmt.Sprintf("  neighbor %s prefix-list %s in\n", node, list), 1)
}

// Deny adds (or, with lift, removes) a line of prefix-list list dropping
// prefix, and re-applies node's inbound policy (soft in).
func Deny(vty func(...string) (string, error), list, prefix string, node netip.Addr, lift bool) error {
	line := fmt.Sprintf("ip prefix-list %s seq 5 deny %s", list, prefix)
	if lift {
		line = "no " + line
	}
	if out, err := vty("configure terminal", line, "end", fmt.Sprintf("clear bgp ipv4 unicast %s soft in", node)); err != nil {
		return fmt.Errorf("vtysh: %w: %s", err, out)
	}
	return nil
}

// InboundCommunity adds community (additive) to node's IPv4 routes in conf
// with an inbound route-map named name: the ToR's own policy tagging them.
func InboundCommunity(conf string, node netip.Addr, name, community string) string {
	conf = strings.Replace(conf, "router bgp ",
		fmt.Sprintf("route-map %s permit 10\n set community %s additive\n!\nrouter bgp ", name, community), 1)
	activate := fmt.Sprintf("  neighbor %s activate\n", node)
	return strings.Replace(conf, activate, activate+fmt.Sprintf("  neighbor %s route-map %s in\n", node, name), 1)
}
