package main

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
)

// A dual-stack cluster-pool: node i owns 10.244.i.0/24 and fd00:10:244:i::/64.
const joinCiliumConfig = `apiVersion: v1
kind: ConfigMap
metadata: {name: cilium-config, namespace: kube-system}
data: {ipam: cluster-pool, cluster-pool-ipv4-cidr: 10.244.0.0/16, cluster-pool-ipv6-cidr: "fd00:10:244::/48",
  enable-ipv6: "true", enable-bgp-control-plane: "true"}
`

// joinNode is node i's Node and CiliumNode, both families allocated.
func joinNode(i int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Node
metadata: {name: node%[1]d}
---
apiVersion: cilium.io/v2
kind: CiliumNode
metadata: {name: node%[1]d}
spec:
  addresses: [{type: InternalIP, ip: 10.0.0.1%[1]d}]
  ipam: {podCIDRs: [10.244.%[1]d.0/24, "fd00:10:244:%[1]d::/64"]}
`, i)
}

func joinPrefixes(i int) []string {
	return []string{fmt.Sprintf("10.244.%d.0/24", i), fmt.Sprintf("fd00:10:244:%d::/64", i)}
}

// joinRoutes are node i's routes as the ToRs' state lists them.
func joinRoutes(i int) []string {
	var out []string
	for _, p := range joinPrefixes(i) {
		out = append(out, fmt.Sprintf("%s from node%d", p, i))
	}
	return out
}

// joinToR is a ToR of the test with the nodes' speakers towards it.
type joinToR struct {
	name string
	r    rovRouter
	// speakers[i] is node i's speaker towards this ToR.
	speakers map[int]*speaker.Speaker
}

// announceNode announces node i's prefixes on its speaker towards every ToR.
func announceNode(t *testing.T, tors []*joinToR, i int) {
	t.Helper()
	for _, tor := range tors {
		s := tor.speakers[i]
		for _, p := range joinPrefixes(i) {
			nh := nodeAddr(i)
			if strings.Contains(p, ":") {
				nh = netip.MustParseAddr(fmt.Sprintf("fd00::1%d", i))
			}
			if err := s.Announce(context.Background(), netip.MustParsePrefix(p), nh); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// untilEach waits, for every ToR at once, until its state is accepted and
// rejected, and logs how long each took from start (and, when node's routes
// are to be accepted, whether they were seen rejected on the way: they beat
// their ROAs to the router).
func untilEach(t *testing.T, tors []*joinToR, what string, start time.Time, within time.Duration,
	accepted, rejected []string, node int) {
	t.Helper()
	took := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, tor := range tors {
		wg.Go(func() {
			seenRejected := false
			deadline := time.Now().Add(within)
			for {
				acc, rej, err := tor.r.state(3)
				if err == nil && slices.Contains(rej, joinRoutes(node)[0]) {
					seenRejected = true
				}
				if err == nil && slices.Equal(acc, accepted) && slices.Equal(rej, rejected) {
					d := time.Since(start).Round(10 * time.Millisecond).String()
					if slices.Contains(accepted, joinRoutes(node)[0]) {
						d += fmt.Sprintf(" (node%d's routes seen rejected first: %v)", node, seenRejected)
					}
					mu.Lock()
					took[tor.name] = d
					mu.Unlock()
					return
				}
				if time.Now().After(deadline) {
					t.Errorf("%s: %s: not within %s: accepted %q, rejected %q (err %v); want %q and %q",
						tor.name, what, within, acc, rej, err, accepted, rejected)
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, tor := range tors {
		t.Logf("%s: %s after %s", what, tor.name, took[tor.name])
	}
}

// TestRTRNodeJoin is the acceptance test of a node joining: a real BIRD 2
// and a real FRR 8.4 (bgpd -M rpki) follow docs/rtr.md's recipes (both
// families; FRR re-running its inbound policy every 5 s, which 8.4 needs to
// look at a denied route again) against routewarden run on a real
// kube-apiserver. node2 is created and announces its IPv4 and IPv6 CIDRs at
// once, before its ROAs can have reached the routers: both accept them
// (the time is logged, not asserted). Deleted, while it still announces:
// both reject them. 200 hostile clients take the RTR server's sessions while
// BIRD reconnects: BIRD, listed in rtr.routers, is served. Re-added: both
// accept them again. Last, why FRR needs its timer: without it, a route it
// denied stays denied when its ROA comes (node3), until a soft in.
func TestRTRNodeJoin(t *testing.T) {
	t.Parallel()
	c := testkube.NewestCilium(t)
	env := testkube.Shared(t, c)
	env.Apply(t, writeFile(t, "cluster.yaml", strings.Join([]string{joinCiliumConfig, rtrBGPObjects(true), joinNode(1)}, "---\n")))
	httpAddr := loopback.FreeAddr(t)
	e := &e2e{env: env, bgpPort: loopback.FreePort(t), httpAddr: httpAddr, api: "http://" + httpAddr}
	rtrAddr := loopback.FreeAddr(t)
	e.run(t, e2eOptions{Extra: fmt.Sprintf(`rtr: {enabled: true, listen: "%s", allowedClients: [127.0.0.0/8],
  routers: [127.0.0.1], refresh: 3600s, retry: 600s, expire: 7200s}
`, rtrAddr)})
	waitROAs(t, e, 4) // the two pools' AS0, node1's two CIDRs
	asns := []uint32{65011, 65012, 65013}
	tors := []*joinToR{
		{name: "BIRD", r: startROVToR(t, netip.MustParseAddr("127.0.0.2"), loopback.FreePort(t), rtrAddr, asns)},
		{name: "FRR", r: startROVFRR(t, netip.MustParseAddr("127.0.0.3"), loopback.FreePort(t), rtrAddr, asns)},
	}
	frr := tors[1].r.(*rovFRR)
	ctx, stop := context.WithCancel(context.Background())
	var ticks sync.WaitGroup
	var timerOn atomic.Bool
	timerOn.Store(true)
	t.Cleanup(func() { stop(); ticks.Wait() })
	ticks.Go(func() { // the recipe's timer on FRR 8.4
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Second):
				if timerOn.Load() {
					_ = frr.softIn()
				}
			}
		}
	})
	for _, tor := range tors {
		addr, port := tor.r.listen()
		tor.speakers = map[int]*speaker.Speaker{}
		for i := 1; i <= 3; i++ {
			s, err := speaker.Start(context.Background(), speaker.Config{
				Local: netip.MustParseAddr(fmt.Sprintf("127.0.1.1%d", i)), ASN: asns[i-1],
				CollectorAddr: addr, CollectorPort: port, CollectorASN: rovToRASN}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Stop)
			tor.speakers[i] = s
		}
	}
	announceNode(t, tors, 1)
	untilEach(t, tors, "node1 accepted", time.Now(), 90*time.Second, joinRoutes(1), nil, 1)
	for _, tor := range tors {
		for i := 2; i <= 3; i++ {
			wait.True(t, fmt.Sprintf("%s's session with node%d", tor.name, i), 60*time.Second, func() bool {
				return tor.speakers[i].Established(context.Background())
			})
		}
	}
	waitRTRClients(t, e, 2)

	both := append(joinRoutes(1), joinRoutes(2)...)
	slices.Sort(both)
	join := func(what string) {
		start := time.Now()
		if out, err := env.Kubectl("create", "-f", writeFile(t, "node2.yaml", joinNode(2))); err != nil {
			t.Fatalf("kubectl create: %v\n%s", err, out)
		}
		announceNode(t, tors, 2)
		untilEach(t, tors, what, start, 120*time.Second, both, nil, 2)
	}
	join("node2 created and announced at once, accepted")

	start := time.Now()
	if out, err := env.Kubectl("delete", "node/node2", "ciliumnode/node2"); err != nil {
		t.Fatalf("kubectl delete: %v\n%s", err, out)
	}
	// A withdrawal waits for the router's notify interval (60 s after the join's notify) or its refresh.
	untilEach(t, tors, "node2 deleted while it announces, rejected", start, 150*time.Second, joinRoutes(1), joinRoutes(2), 2)

	floodWhileReconnecting(t, e, rtrAddr, tors[0].r.(*rovToR))

	join("node2 re-added, accepted again")

	// FRR 8.4 without its timer: node3 announces its CIDRs before they are allocated (both reject them,
	// Invalid under the pools' AS0), then is created: BIRD accepts them, FRR keeps them out (10 s are
	// watched: a slow machine only makes that likelier) until one soft in.
	timerOn.Store(false)
	announceNode(t, tors, 3)
	untilEach(t, tors, "node3's CIDRs, announced before their allocation, rejected", time.Now(), 60*time.Second,
		both, joinRoutes(3), 3)
	all := append(slices.Clone(both), joinRoutes(3)...)
	slices.Sort(all)
	start = time.Now()
	if out, err := env.Kubectl("create", "-f", writeFile(t, "node3.yaml", joinNode(3))); err != nil {
		t.Fatalf("kubectl create: %v\n%s", err, out)
	}
	untilEach(t, tors[:1], "node3 created, accepted", start, 60*time.Second, all, nil, 3)
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		if _, rej, err := frr.state(3); err == nil && !slices.Contains(rej, joinRoutes(3)[0]) {
			t.Fatalf("FRR accepted a route it had denied once its ROA came, without a soft in: "+
				"docs/rtr.md's timer is no longer needed with this FRR (rejected: %q)", rej)
		}
	}
	t.Log("node3 created: FRR 8.4 still rejects its CIDRs 10 s after BIRD accepted them")
	if err := frr.softIn(); err != nil {
		t.Fatal(err)
	}
	untilEach(t, tors[1:], "one soft in later, node3 accepted", time.Now(), 30*time.Second, all, nil, 3)
}
