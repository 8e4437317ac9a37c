package interop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The ToR variant: the nodes peer with FRR's bgpd (Debian's frr, AS 65000) on the bridge
// address, and FRR reports every node's session over BMP, pre- and post-policy, to routewarden's
// BMP station; routewarden peers with nobody.

const (
	bgpdPath = "/usr/lib/frr/bgpd"
	bmpPort  = 11019
)

// torMissing says why FRR cannot play the ToR here ("" when it can).
func torMissing() string {
	if _, err := os.Stat(bgpdPath); err != nil {
		return "FRR's bgpd is not installed (apt-get install frr; hack/test-deps.sh does)"
	}
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/frr/modules/bgpd_bmp.so"); err != nil {
		return "FRR's BMP module is not installed"
	}
	return ""
}

// startToR runs bgpd with nodes 1..n as neighbors, BMP to routewarden's station.
func (l *lab) startToR(n int) {
	l.t.Helper()
	dir := filepath.Join(l.dir, "frr")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		l.t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "log file %s debugging\n!\nrouter bgp 65000\n bgp router-id %s\n", filepath.Join(dir, "bgpd.log"), torV4)
	b.WriteString(" no bgp ebgp-requires-policy\n no bgp network import-check\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, " neighbor %s remote-as 65010\n", nodeV4(i))
	}
	for _, af := range []string{"ipv4", "ipv6"} {
		fmt.Fprintf(&b, " address-family %s unicast\n", af)
		for i := 1; i <= n; i++ {
			// FRR sends pre-policy routes only from an Adj-RIB-In it keeps (FRRouting/frr#10240).
			fmt.Fprintf(&b, "  neighbor %[1]s activate\n  neighbor %[1]s soft-reconfiguration inbound\n", nodeV4(i))
		}
		b.WriteString(" exit-address-family\n")
	}
	fmt.Fprintf(&b, " bmp targets station\n  bmp connect 127.0.0.1 port %d min-retry 100 max-retry 1000\n", bmpPort)
	for _, af := range []string{"ipv4", "ipv6"} {
		for _, view := range []string{"pre-policy", "post-policy"} {
			fmt.Fprintf(&b, "  bmp monitor %s unicast %s\n", af, view)
		}
	}
	b.WriteString(" exit\nexit\n")
	conf := filepath.Join(dir, "bgpd.conf")
	if err := os.WriteFile(conf, []byte(b.String()), 0o644); err != nil {
		l.t.Fatal(err)
	}
	l.start("frr-bgpd", "", bgpdPath, "-M", "bmp", "--no_zebra", "--skip_runas", "-f", conf,
		"-i", filepath.Join(dir, "bgpd.pid"), "--vty_socket", dir, "-P", "0", "-l", torV4, "-p", "179")
}
