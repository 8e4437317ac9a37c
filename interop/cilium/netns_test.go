package interop

import (
	"fmt"
	"os/exec"
	"strings"
)

// The lab's network: the ToR namespace has a bridge br0 at 10.0.0.1/24 and fd00::1/64, where
// kube-apiserver (all addresses), routewarden (BGP port 179) and the operator live; node i's
// namespace has eth0 at 10.0.0.1i/24 and fd00::1i/64, a veth whose other end is on br0.
const (
	torV4 = "10.0.0.1"
	torV6 = "fd00::1"
)

func nodeV4(i int) string { return fmt.Sprintf("10.0.0.1%d", i) }
func nodeV6(i int) string { return fmt.Sprintf("fd00::1%d", i) }

// ip runs ip(8) with args.
func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// torUp creates the ToR namespace ns with its bridge.
func torUp(ns string) error {
	steps := [][]string{
		{"netns", "add", ns},
		{"-n", ns, "link", "set", "lo", "up"},
		{"-n", ns, "link", "add", "br0", "type", "bridge"},
		{"-n", ns, "addr", "add", torV4 + "/24", "dev", "br0"},
		{"-n", ns, "addr", "add", torV6 + "/64", "dev", "br0", "nodad"},
		{"-n", ns, "link", "set", "br0", "up"},
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			return err
		}
	}
	return nil
}

// torDown deletes the ToR namespace and every node namespace made beside it.
func torDown(ns string) {
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(line, " ")
		if name == ns || strings.HasPrefix(name, ns+"-") {
			_ = ip("netns", "del", name)
		}
	}
}

// nodeNetns is node i's namespace beside the ToR namespace tor.
func nodeNetns(tor string, i int) string { return fmt.Sprintf("%s-n%d", tor, i) }

// nodeUp creates node i's namespace and wires it to the ToR's bridge. Run inside the ToR namespace.
func nodeUp(tor string, i int) error {
	ns := nodeNetns(tor, i)
	veth := fmt.Sprintf("n%d", i)
	steps := [][]string{
		{"netns", "add", ns},
		{"-n", ns, "link", "set", "lo", "up"},
		{"link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns},
		{"link", "set", veth, "master", "br0", "up"},
		{"-n", ns, "addr", "add", nodeV4(i) + "/24", "dev", "eth0"},
		{"-n", ns, "addr", "add", nodeV6(i) + "/64", "dev", "eth0", "nodad"},
		{"-n", ns, "link", "set", "eth0", "up"},
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			return err
		}
	}
	return nil
}

// nodeDown deletes node i's namespace (its veth goes with it).
func nodeDown(tor string, i int) { _ = ip("netns", "del", nodeNetns(tor, i)) }
