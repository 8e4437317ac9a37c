package main

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/wait"
)

// peeringNodeManifests are nodes 1..n of newE2E, but with the addresses their
// speakers peer from (127.0.1.1i, in the dynamic range): the inventory says
// each of them should peer with routewarden.
func peeringNodeManifests(n int) []string {
	var docs []string
	for i := 1; i <= n; i++ {
		docs = append(docs, fmt.Sprintf(`apiVersion: v1
kind: Node
metadata: {name: node%[1]d}
status:
  addresses: [{type: InternalIP, address: 127.0.1.1%[1]d}]
  conditions: [{type: Ready, status: "True"}]
`, i), fmt.Sprintf(`apiVersion: cilium.io/v2
kind: CiliumNode
metadata: {name: node%[1]d}
spec:
  addresses: [{type: InternalIP, ip: 127.0.1.1%[1]d}]
  ipam: {podCIDRs: [10.244.%[1]d.0/24]}
`, i))
	}
	return docs
}

// With only dynamic neighbors, warm-up ends when every Ready, Cilium-managed
// node whose address is in a dynamic range has sent End-of-RIB: not before
// (two of three nodes are not enough), and not only at the timeout (an hour).
func TestRunWarmupEndsFromInventory(t *testing.T) {
	t.Parallel()
	e := newE2E(t, 0, peeringNodeManifests(3)...)
	e.run(t, e2eOptions{Warmup: "1h", GR: true})
	grSpeaker(t, e, 1)
	grSpeaker(t, e, 2)
	wait.For(t, "End-of-RIB from nodes 1 and 2", 60*time.Second, func() error {
		var p struct {
			Peers []struct {
				Address  string   `json:"address"`
				EndOfRIB []string `json:"endOfRib"`
			} `json:"peers"`
		}
		if err := getJSON(e.api+"/api/v1/peers", &p); err != nil {
			return err
		}
		done := 0
		for _, peer := range p.Peers {
			if len(peer.EndOfRIB) > 0 {
				done++
			}
		}
		if done != 2 {
			return fmt.Errorf("%d peers with End-of-RIB (%+v), want 2", done, p.Peers)
		}
		return nil
	})
	if !warmingUp(t, e) {
		t.Fatal("warm-up ended while node3, Ready and in the dynamic range, had not peered")
	}
	grSpeaker(t, e, 3)
	wait.For(t, "warm-up to end once node3 has sent End-of-RIB", 60*time.Second, func() error {
		if warmingUp(t, e) {
			return fmt.Errorf("still warming up")
		}
		return nil
	})
}

// grSpeaker starts node i's speaker with graceful restart, as Cilium's: GoBGP
// sends End-of-RIB only to peers that negotiated it.
func grSpeaker(t *testing.T, e *e2e, i int) {
	t.Helper()
	s, err := speaker.Start(context.Background(), speaker.Config{
		Local: netip.MustParseAddr(fmt.Sprintf("127.0.1.%d", 10+i)), ASN: 65010, RestartTime: 120,
		CollectorAddr: netip.MustParseAddr("127.0.0.1"), CollectorPort: e.bgpPort, CollectorASN: 65000}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	announce(t, s, fmt.Sprintf("10.244.%d.0/24", i), i)
}

func warmingUp(t *testing.T, e *e2e) bool {
	t.Helper()
	var f struct {
		WarmingUp bool `json:"warmingUp"`
	}
	if err := getJSON(e.api+"/api/v1/findings", &f); err != nil {
		return true
	}
	return f.WarmingUp
}
