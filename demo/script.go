package demo

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
)

// Script plays the story: speakers announce, a node is decommissioned, the
// cluster is fixed.
type Script struct {
	Out           io.Writer
	Cluster       *Cluster
	CollectorPort int32
	CollectorASN  uint32
	// Pause is the time between steps, long enough to watch the findings settle.
	Pause time.Duration
	// Settled reports whether the collector holds routes routes and the
	// findings match what a step expects (some, or none).
	Settled func(routes int, wantFindings bool) bool
	Log     zerolog.Logger
	// Hold, when set, runs after the story while the speakers still announce
	// the healthy routes (demo --keep: the page shows the healthy end).
	Hold func(ctx context.Context)
	// Convergence, when set, describes the route changes timed during the
	// step (ConvergenceLine), printed when it has settled.
	Convergence func() string
}

// Run plays the script; it returns when the story is told or ctx ends.
func (s *Script) Run(ctx context.Context) error {
	speakers := make([]*speaker.Speaker, len(nodes))
	defer func() {
		for _, sp := range speakers {
			if sp != nil {
				sp.Stop()
			}
		}
	}()
	s.step(1, "The legacy BGP speaker announces Node.spec.podCIDRs, but cluster-pool IPAM gave every node "+
		"another CIDR (CiliumNode spec.ipam.podCIDRs): every node announces a CIDR that is not its own.")
	for i, n := range nodes {
		sp, err := speaker.Start(ctx, speaker.Config{Local: netip.AddrFrom4([4]byte{127, 0, 1, byte(11 + i)}),
			ASN: 65010, CollectorAddr: netip.MustParseAddr("127.0.0.1"), CollectorPort: s.CollectorPort,
			CollectorASN: s.CollectorASN}, s.Log)
		if err != nil {
			return err
		}
		speakers[i] = sp
		if err := sp.Announce(ctx, n.k8sCIDR, n.ip); err != nil {
			return err
		}
		fmt.Fprintf(s.Out, "         %s (%s) announces %s; Cilium routes %s there\n", n.name, n.ip, n.k8sCIDR, n.cidr)
	}
	if !s.wait(ctx, 4, true) {
		return ctx.Err()
	}
	s.step(2, "node4 is decommissioned: its Node and CiliumNode are deleted, but the machine still runs its "+
		"BGP speaker and keeps announcing 10.244.3.0/24, node3's CIDR.")
	s.Cluster.DeleteNode("node4", time.Now())
	if !s.wait(ctx, 4, true) {
		return ctx.Err()
	}
	s.step(3, "The fix: the nodes move to the BGP control plane, which announces each CiliumNode's CIDR, and "+
		"node4's machine is switched off.")
	speakers[3].Stop()
	speakers[3] = nil
	for i, n := range nodes[:3] {
		if err := speakers[i].Withdraw(ctx, n.k8sCIDR, n.ip); err != nil {
			return err
		}
		if err := speakers[i].Announce(ctx, n.cidr, n.ip); err != nil {
			return err
		}
	}
	if !s.wait(ctx, 3, false) {
		return ctx.Err()
	}
	fmt.Fprintln(s.Out, "\nEvery finding resolved: the routes match the cluster again.")
	if s.Hold != nil {
		s.Hold(ctx)
	}
	return nil
}

func (s *Script) step(n int, text string) {
	fmt.Fprintf(s.Out, "\n── step %d/3 ─────────────────────────────────────────────────────────────────\n", n)
	fmt.Fprintf(s.Out, "%s\n\n", text)
}

// wait lets the findings settle (or the pause pass) before the next step.
func (s *Script) wait(ctx context.Context, routes int, wantFindings bool) bool {
	deadline := time.Now().Add(30 * time.Second)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	settledAt := time.Time{}
	for {
		select {
		case <-ctx.Done():
			return false
		case now := <-t.C:
			if s.Settled(routes, wantFindings) && settledAt.IsZero() {
				settledAt = now
			}
			if !settledAt.IsZero() && now.Sub(settledAt) >= s.Pause || now.After(deadline) {
				if s.Convergence != nil {
					fmt.Fprintf(s.Out, "  convergence  %s\n", wrap(s.Convergence(), 90, "               "))
				}
				return true
			}
		}
	}
}
