package main

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/testkube"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/wait"
)

// rtrBGPObjects: the nodes' BGP instance (AS 65010) and, per node, an
// override of its local ASN (when perNode).
func rtrBGPObjects(perNode bool) string {
	s := `apiVersion: cilium.io/v2
kind: CiliumBGPClusterConfig
metadata: {name: tor}
spec:
  bgpInstances: [{name: tor, localASN: 65010, peers: [{name: tor, peerASN: 65000, peerAddress: 127.0.0.2}]}]
`
	for i := 1; perNode && i <= 3; i++ {
		s += fmt.Sprintf(`---
apiVersion: cilium.io/v2
kind: CiliumBGPNodeConfigOverride
metadata: {name: node%d}
spec: {bgpInstances: [{name: tor, localASN: 6501%d}]}
`, i, i)
	}
	return s
}

// rovRouter is a real ToR doing route origin validation against routewarden.
type rovRouter interface {
	// listen is where the nodes connect.
	listen() (netip.Addr, int32)
	// state lists the routes accepted and those received and rejected, as "prefix from nodeI".
	state(nodes int) (accepted, rejected []string, err error)
}

// TestRTRToR is the acceptance test of the RTR server: a real BIRD 2 (and
// FRR, with Debian's frr-rpki-rtrlib) ToR validates the routes of real GoBGP
// speakers (the nodes) against the ROAs
// routewarden run serves from a real kube-apiserver. What the cluster did
// not allocate is rejected by the ToR itself; a deleted node's CIDR and a
// deleted Service's VIP are rejected as soon as the RTR Serial Notify round
// trip is done (the routers' refresh is an hour, so nothing else explains
// it; a second notify may wait for the one-a-minute limit); every healthy
// route stays accepted. With one AS for all nodes, node2
// announcing node1's CIDR is Valid (the documented limit: foreign-cidr stays
// a detection); with an AS per node, the ToR rejects it.
func TestRTRToR(t *testing.T) {
	t.Parallel()
	bird := func(t *testing.T, rtrAddr string, asns []uint32) rovRouter {
		return startROVToR(t, netip.MustParseAddr("127.0.0.2"), loopback.FreePort(t), rtrAddr, asns)
	}
	frr := func(t *testing.T, rtrAddr string, asns []uint32) rovRouter {
		return startROVFRR(t, netip.MustParseAddr("127.0.0.3"), loopback.FreePort(t), rtrAddr, asns)
	}
	for _, tc := range []struct {
		name    string
		tor     func(t *testing.T, rtrAddr string, asns []uint32) rovRouter
		perNode bool
		// foreignRejected is how the ToR treats node2 announcing node1's CIDR.
		foreignRejected bool
	}{
		{"BIRD with one AS for every node", bird, false, false},
		{"BIRD with an AS per node", bird, true, true},
		{"FRR with an AS per node", frr, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asn := func(i int) uint32 {
				if tc.perNode {
					return uint32(65010 + i)
				}
				return 65010
			}
			c := testkube.NewestCilium(t)
			e := newE2EOn(t, c, 3, vipObjects(c), rtrBGPObjects(tc.perNode),
				vipService("web", "172.16.100.10", "Cluster")+vipEndpoints("node1", "node2"),
				vipService("gone", "172.16.100.11", "Cluster")+vipEndpoints("node1"))
			rtrAddr := loopback.FreeAddr(t)
			e.run(t, e2eOptions{Extra: fmt.Sprintf(`rtr: {enabled: true, listen: "%s", allowedClients: [127.0.0.0/8],
  refresh: 3600s, retry: 600s, expire: 7200s}
`, rtrAddr)})
			// pod range, LB pool (AS0), 3 CIDRs, 2 VIPs (times 3 ASes per VIP with an AS per node).
			want := 7
			if tc.perNode {
				want = 11
			}
			waitROAs(t, e, want)
			tor := tc.tor(t, rtrAddr, []uint32{asn(1), asn(2), asn(3)})
			torAddr, torPort := tor.listen()
			announced := map[int][]string{
				1: {"10.244.1.0/24", "172.16.100.10/32", "172.16.100.11/32"},
				2: {"10.244.2.0/24", "10.244.77.0/24", "10.244.1.0/24"}, // unallocated, and node1's
				3: {"10.244.3.0/24"},
			}
			for i := 1; i <= 3; i++ {
				s, err := speaker.Start(context.Background(), speaker.Config{
					Local: netip.MustParseAddr(fmt.Sprintf("127.0.1.1%d", i)), ASN: asn(i),
					CollectorAddr: torAddr, CollectorPort: torPort, CollectorASN: rovToRASN}, zerolog.Nop())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(s.Stop)
				for _, p := range announced[i] {
					announce(t, s, p, i)
				}
			}
			healthy := []string{"10.244.1.0/24 from node1", "10.244.2.0/24 from node2", "10.244.3.0/24 from node3",
				"172.16.100.10/32 from node1", "172.16.100.11/32 from node1"}
			rejected := []string{"10.244.77.0/24 from node2"}
			if tc.foreignRejected {
				rejected = append([]string{"10.244.1.0/24 from node2"}, rejected...)
			} else {
				healthy = append(healthy, "10.244.1.0/24 from node2")
				slices.Sort(healthy)
			}
			waitToR(t, tor, "the unallocated CIDR rejected, the rest accepted", 90*time.Second, healthy, rejected)

			// Delete node3 and Service gone in one step: their routes are still announced, and the ToR rejects them.
			start := time.Now()
			if out, err := e.env.Kubectl("-n", "shop", "delete", "node/node3", "ciliumnode/node3", "service/gone"); err != nil {
				t.Fatalf("kubectl delete: %v\n%s", err, out)
			}
			healthy = slices.DeleteFunc(healthy, func(s string) bool {
				return strings.HasPrefix(s, "10.244.3.0/24") || strings.HasPrefix(s, "172.16.100.11/32")
			})
			rejected = append(rejected, "10.244.3.0/24 from node3", "172.16.100.11/32 from node1")
			slices.Sort(rejected)
			// The routers' refresh is 3600s: only Serial Notifies bring the change. The first comes at once; should the
			// deletes span two serials, the second comes a notify interval later (60s, RFC 8210 section 8.2).
			waitToR(t, tor, "the deleted node's CIDR and the deleted Service's VIP rejected", 90*time.Second, healthy, rejected)
			t.Logf("from kubectl delete to the ToR rejecting: %s", time.Since(start).Round(10*time.Millisecond))
			acc, rej, _ := tor.state(3)
			t.Logf("accepted %q, rejected %q", acc, rej)
			checkRTRClient(t, e)
		})
	}
}

// waitROAs waits until routewarden serves n ROAs.
func waitROAs(t *testing.T, e *e2e, n int) {
	t.Helper()
	wait.For(t, fmt.Sprintf("%d ROAs at /api/v1/roas", n), 90*time.Second, func() error {
		var st struct {
			Ready bool `json:"ready"`
			Count int  `json:"count"`
		}
		if err := getJSON(e.api+"/api/v1/roas", &st); err != nil {
			return err
		}
		if !st.Ready || st.Count != n {
			return fmt.Errorf("ready %v, %d ROAs", st.Ready, st.Count)
		}
		return nil
	})
}

// waitToR waits until the ToR has accepted exactly accepted and rejected exactly rejected.
func waitToR(t *testing.T, tor rovRouter, what string, within time.Duration, accepted, rejected []string) {
	t.Helper()
	wait.For(t, what, within, func() error {
		acc, rej, err := tor.state(3)
		if err != nil {
			return err
		}
		if !slices.Equal(acc, accepted) || !slices.Equal(rej, rejected) {
			return fmt.Errorf("accepted %q, rejected %q; want %q and %q", acc, rej, accepted, rejected)
		}
		return nil
	})
}

// checkRTRClient: /api/v1/roas lists the ToR, brought to the current serial.
func checkRTRClient(t *testing.T, e *e2e) {
	t.Helper()
	wait.For(t, "the ToR at the current serial in /api/v1/roas", 30*time.Second, func() error {
		var st struct {
			Serial  uint32 `json:"serial"`
			Clients []struct {
				Version       int    `json:"version"`
				LastQueryType string `json:"lastQueryType"`
				Serial        uint32 `json:"serial"`
			} `json:"clients"`
		}
		if err := getJSON(e.api+"/api/v1/roas", &st); err != nil {
			return err
		}
		if len(st.Clients) != 1 || st.Clients[0].Serial != st.Serial || st.Clients[0].LastQueryType != "serial" {
			return fmt.Errorf("serial %d, clients %+v", st.Serial, st.Clients)
		}
		t.Logf("the ToR speaks RTR version %d", st.Clients[0].Version)
		return nil
	})
}
