package main

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/routewarden/routewarden/bgp/bgptest"
)

// The cluster's routes, as the ToR in front of routewarden relays them: one
// eBGP session from torAddr (a static neighbor of routewarden's) with ADD-PATH
// negotiated, carrying every node's pod CIDRs (IPv4 and IPv6, next hop the
// node's address) and every Service's VIP once per announcing node (the
// nodes of its endpoints: externalTrafficPolicy Local), each with its own
// path ID and the announcing node as next hop. AS_PATH is the ToR's ASN then
// the nodes' (CiliumBGPClusterConfig's localASN), as the ToR relays it.

const (
	torAddr = "127.0.1.1"
	torASN  = 65100
	nodeASN = 65010 // benchCiliumObjects' localASN
)

// torRoutes are the UPDATEs announcing the cluster's routes, End-of-RIB of
// both families at the end, and how many paths they carry.
func torRoutes(nodes, services int) (msgs [][]byte, paths int, err error) {
	add := func(ps []netip.Prefix, a bgptest.Attrs) error {
		a.ASPath, a.AddPath = []uint32{torASN, nodeASN}, true
		us, err := bgptest.PackUpdates(ps, a)
		msgs, paths = append(msgs, us...), paths+len(ps)
		return err
	}
	for i := 0; i < nodes; i++ {
		if err := add([]netip.Prefix{netip.MustParsePrefix(podCIDRV4(i))},
			bgptest.Attrs{NextHop: netip.MustParseAddr(nodeV4(i)), PathID: 1}); err != nil {
			return nil, 0, fmt.Errorf("packing node %d's pod CIDRs: %w", i, err)
		}
		if err := add([]netip.Prefix{netip.MustParsePrefix(podCIDRV6(i))},
			bgptest.Attrs{NextHop6: netip.MustParseAddr(nodeV6(i)), PathID: 1}); err != nil {
			return nil, 0, fmt.Errorf("packing node %d's pod CIDRs: %w", i, err)
		}
	}
	// A VIP's path IDs are 1..announcersPerVIP; node n's VIPs share
	// attributes, so they are packed per (node, path ID).
	type key struct{ node, id int }
	byNode := map[key][]netip.Prefix{}
	var order []key
	for j := 0; j < services; j++ {
		for k := 0; k < announcersPerVIP; k++ {
			kk := key{vipNode(j, k, nodes), k + 1}
			if byNode[kk] == nil {
				order = append(order, kk)
			}
			byNode[kk] = append(byNode[kk], netip.PrefixFrom(netip.MustParseAddr(serviceVIP(j)), 32))
		}
	}
	for _, kk := range order {
		if err := add(byNode[kk], bgptest.Attrs{NextHop: netip.MustParseAddr(nodeV4(kk.node)),
			PathID: uint32(kk.id)}); err != nil {
			return nil, 0, fmt.Errorf("packing VIPs of node %d: %w", kk.node, err)
		}
	}
	return append(msgs, bgptest.EndOfRIB(false), bgptest.EndOfRIB(true)), paths, nil
}

// torSession connects to routewarden's BGP listener at addr as the ToR,
// negotiating ADD-PATH, and sends the cluster's routes. The session stays up
// (keepalives) until the Conn is closed.
func torSession(ctx context.Context, addr string, nodes, services int) (*bgptest.Conn, int, error) {
	msgs, paths, err := torRoutes(nodes, services)
	if err != nil {
		return nil, 0, err
	}
	local := netip.MustParseAddr(torAddr)
	o := bgptest.Open{ASN: torASN, RouterID: local, LocalAddr: local, AddPathSend: true}
	c, err := dialOpen(ctx, addr, o, 10*time.Minute)
	if err != nil {
		return nil, 0, fmt.Errorf("the ToR's session with routewarden: %w", err)
	}
	if err := c.Send(msgs...); err != nil {
		_ = c.Close()
		return nil, 0, fmt.Errorf("sending the cluster's routes: %w", err)
	}
	return c, paths, nil
}

// torRun is the ToR's session with one watcher, started beside it.
type torRun struct {
	done  chan struct{}
	conn  *bgptest.Conn
	paths int
	err   error
}

// startToR connects the ToR to w's BGP listener once it listens (nothing
// for a watcher without one, the floor).
func startToR(ctx context.Context, w watcher, o ClusterOptions) *torRun {
	t := &torRun{done: make(chan struct{})}
	if w.bgp == "" {
		close(t.done)
		return t
	}
	go func() {
		defer close(t.done)
		t.conn, t.paths, t.err = torSession(ctx, w.bgp, o.Nodes, o.Services)
	}()
	return t
}

// wait is the number of paths sent, once they are.
func (t *torRun) wait() (int, error) {
	<-t.done
	return t.paths, t.err
}

// close ends the session (after the watcher stopped, it is gone already).
func (t *torRun) close() {
	<-t.done
	if t.conn != nil {
		_ = t.conn.Close()
	}
}
