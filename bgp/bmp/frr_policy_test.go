package bmp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

// frrFilteringConfig is frrBMPConfig with an inbound prefix-list on node2,
// which lets everything through until filterNode2 adds a line.
func frrFilteringConfig(dir string, stationPort uint32) string {
	conf := frrBMPConfig(dir, stationPort, node1, node2)
	conf = strings.Replace(conf, "router bgp 65000\n", "ip prefix-list node2-in seq 10 permit any\n!\nrouter bgp 65000\n", 1)
	// FRR 8.4 sends pre-policy routes from the Adj-RIB-In it keeps only with
	// soft-reconfiguration inbound (FRRouting/frr#10240).
	for _, n := range []netip.Addr{node1, node2} {
		activate := fmt.Sprintf("  neighbor %s activate\n", n)
		conf = strings.ReplaceAll(conf, activate, activate+fmt.Sprintf("  neighbor %s soft-reconfiguration inbound\n", n))
	}
	activate := fmt.Sprintf("  neighbor %s activate\n", node2)
	return strings.Replace(conf, activate, activate+fmt.Sprintf("  neighbor %s prefix-list node2-in in\n", node2), 1)
}

// filterNode2 adds (or, with fixed, removes) the prefix-list line dropping
// 10.244.2.0/24, node2's own pod CIDR (a filter written for the old pool),
// and re-applies the policy.
func filterNode2(vty func(...string) (string, error), fixed bool) error {
	line := "ip prefix-list node2-in seq 5 deny 10.244.2.0/24"
	if fixed {
		line = "no " + line
	}
	out, err := vty("configure terminal", line, "end", fmt.Sprintf("clear bgp ipv4 unicast %s soft in", node2))
	if err != nil {
		return fmt.Errorf("vtysh: %w: %s", err, out)
	}
	return nil
}

// TestFRRFilteredAtToR: a real FRR ToR whose prefix-list drops one node's
// pod CIDR sends BMP pre- and post-policy: filtered-at-tor fires for exactly
// that CIDR, naming the ToR and the peer, and resolves once the prefix-list
// is fixed.
func TestFRRFilteredAtToR(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := startStation(t)
	port := loopback.FreePort(t)
	vty := startFRRBMP(t, port, frrFilteringConfig(t.TempDir(), st.port()))
	n1, n2 := startNode(t, ctx, node1, port), startNode(t, ctx, node2, port)
	if err := n1.Announce(ctx, netip.MustParsePrefix("10.244.1.0/24"), netip.MustParseAddr("10.0.0.11")); err != nil {
		t.Fatal(err)
	}
	if err := n2.Announce(ctx, netip.MustParsePrefix("10.244.2.0/24"), netip.MustParseAddr("10.0.0.12")); err != nil {
		t.Fatal(err)
	}
	const (
		r1 = "10.244.1.0/24 peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0"
		r2 = "10.244.2.0/24 peer=127.0.1.12 nh=10.0.0.12 as=65010 id=127.0.1.12 path=[65010] pathid=0"
	)
	waitRoutes(t, st.store, []string{r1, r2})
	waitFiltered(t, st, nil)
	// FRR 8.4 sends a path its policy drops in the pre-policy view only when
	// something happens to it (never for a path dropped on arrival, except in
	// a BMP session's initial table): the filter comes after the path.
	if err := filterNode2(vty, false); err != nil {
		t.Fatal(err)
	}
	// The rules judge the post-policy view: node2's CIDR is not in it.
	waitRoutes(t, st.store, []string{r1})
	want := []string{"filtered-at-tor 10.244.2.0/24 node2 peer 127.0.1.12: ToR 127.0.0.1 received 10.244.2.0/24 " +
		"(pod CIDR of node2) from node2 (peer 127.0.1.12, AS 65010) and its policy dropped it: absent from the " +
		"ToR's post-policy RIB since"}
	waitFiltered(t, st, want)

	// The prefix-list is fixed: FRR re-applies it (soft in), the finding resolves.
	if err := filterNode2(vty, true); err != nil {
		t.Fatal(err)
	}
	waitFiltered(t, st, nil)
	waitRoutes(t, st.store, []string{r1, r2})
}

// waitFiltered waits until the filtered-at-tor findings over the station's
// store (the two-node cluster of findings) are want: "rule prefix node peer
// peer: message" up to the message's time.
func waitFiltered(t *testing.T, st *testStation, want []string) {
	t.Helper()
	wait.For(t, fmt.Sprintf("filtered-at-tor findings %q", want), 30*time.Second, func() error {
		drops, _ := st.store.PolicyDrops()
		routes, _ := st.store.Routes()
		c := twoNodeCluster()
		c.PolicyDrops = drops
		var got []string
		for _, f := range validator.Validate(c, routes, validator.Options{Now: time.Now()}).Findings {
			if f.Rule != validator.RuleFilteredAtToR {
				continue
			}
			msg, _, _ := strings.Cut(f.Message, " since ")
			got = append(got, fmt.Sprintf("%s %s %s peer %s: %s since", f.Rule, f.Prefix, f.Node, f.Peer, msg))
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("got %q; drops %v; peers %+v", got, drops, st.store.MonitoredPeers())
		}
		return nil
	})
}
