package main

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/hack/bench/ingest"
)

// The raw sender is bgp/bgptest: a minimal BGP speaker (OPEN/KEEPALIVE
// handshake) that writes pre-built UPDATE bytes as fast as the collector
// reads them.

// localPref is what both senders announce in LOCAL_PREF (the sessions are iBGP).
const localPref = 100

// buildUpdates packs a workload, each node's prefixes with its next hop into
// as few UPDATEs of at most 4096 bytes as they fit (one, at ten per node),
// followed by End-of-RIB for IPv4 and IPv6: the bytes the raw sender writes
// and how many UPDATEs announce routes.
func buildUpdates(w ingest.Workload) (msgs []byte, count int, err error) {
	for k := 0; k < w.Nodes; k++ {
		var ps []netip.Prefix
		for i := k * w.PerNode; i < min((k+1)*w.PerNode, w.N); i++ {
			ps = append(ps, w.Prefix(i))
		}
		a := bgptest.Attrs{LocalPref: localPref} // iBGP: an empty AS_PATH
		if nh := w.NodeAddr(k); nh.Is4() {
			a.NextHop = nh
		} else {
			a.NextHop6 = nh
		}
		node, err := bgptest.PackUpdates(ps, a)
		if err != nil {
			return nil, 0, fmt.Errorf("packing node %d's prefixes: %w", k, err)
		}
		for _, m := range node {
			msgs = append(msgs, m...)
		}
		count += len(node)
	}
	msgs = append(msgs, bgptest.EndOfRIB(false)...)
	return append(msgs, bgptest.EndOfRIB(true)...), count, nil
}

// dialRaw connects from local to the collector at addr (retrying while it
// starts listening) and completes the handshake.
func dialRaw(ctx context.Context, local netip.Addr, addr string, asn uint32) (*bgptest.Conn, error) {
	return dialOpen(ctx, addr, bgptest.Open{ASN: asn, RouterID: local, LocalAddr: local}, 15*time.Second)
}

// dialOpen dials addr with o, retrying for up to wait while it starts listening.
func dialOpen(ctx context.Context, addr string, o bgptest.Open, wait time.Duration) (*bgptest.Conn, error) {
	for deadline := time.Now().Add(wait); ; {
		hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		c, err := bgptest.Dial(hctx, addr, o)
		cancel()
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return c, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
