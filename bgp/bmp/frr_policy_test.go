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
	"github.com/routewarden/routewarden/internal/testfrr"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

// TestFRRFilteredAtToR: a real FRR ToR whose prefix-list drops one node's
// pod CIDR sends BMP pre- and post-policy: filtered-at-tor fires for exactly
// that CIDR, naming the ToR and the peer, and resolves once the prefix-list
// is fixed.
func TestFRRFilteredAtToR(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := startStation(t)
	port := loopback.FreePort(t)
	conf := testfrr.PrePolicy(frrBMPConfig(t.TempDir(), st.port(), node1, node2), node1, node2)
	vty := startFRRBMP(t, port, testfrr.InboundPrefixList(conf, node2, "node2-in"))
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
	if err := testfrr.Deny(vty, "node2-in", "10.244.2.0/24", node2, false); err != nil {
		t.Fatal(err)
	}
	// The rules judge the post-policy view: node2's CIDR is not in it.
	waitRoutes(t, st.store, []string{r1})
	want := []string{"filtered-at-tor 10.244.2.0/24 node2 peer 127.0.1.12: ToR 127.0.0.1 received 10.244.2.0/24 " +
		"(pod CIDR of node2) from node2 (peer 127.0.1.12, AS 65010) and its policy dropped it: absent from the " +
		"ToR's post-policy RIB since"}
	waitFiltered(t, st, want)

	// The prefix-list is fixed: FRR re-applies it (soft in), the finding resolves.
	if err := testfrr.Deny(vty, "node2-in", "10.244.2.0/24", node2, true); err != nil {
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
		pv := validator.PolicyView{Drops: drops}
		var got []string
		for _, f := range validator.Validate(twoNodeCluster(), routes, pv, validator.Options{Now: time.Now()}).Findings {
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
