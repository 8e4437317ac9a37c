package bmp

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/server"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/wait"
)

var (
	torAddr = netip.MustParseAddr("127.0.2.1")
	node1   = netip.MustParseAddr("127.0.1.11")
	node2   = netip.MustParseAddr("127.0.1.12")
)

// startTor runs a GoBGP "ToR" (AS 65000) that accepts the given nodes (AS
// 65010) on torAddr:port.
func startTor(t *testing.T, ctx context.Context, port int32, nodes ...netip.Addr) *server.BgpServer {
	t.Helper()
	srv := startGoBGP(t, ctx, &api.Global{Asn: 65000, RouterId: torAddr.String(),
		ListenPort: port, ListenAddresses: []string{torAddr.String()}})
	for _, n := range nodes {
		if err := srv.AddPeer(ctx, &api.AddPeerRequest{Peer: torPeer(n, nil)}); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}

// torPeer is the ToR's passive session with node n (AS 65010), with ADD-PATH
// configured as addPaths (nil: none).
func torPeer(n netip.Addr, addPaths *api.AddPathsConfig) *api.Peer {
	return &api.Peer{
		Conf:         &api.PeerConf{NeighborAddress: n.String(), PeerAsn: 65010},
		Transport:    &api.Transport{PassiveMode: true},
		EbgpMultihop: &api.EbgpMultihop{Enabled: true, MultihopTtl: 255},
		AfiSafis:     unicastAfiSafis(addPaths),
	}
}

func addBMP(t *testing.T, ctx context.Context, srv *server.BgpServer, st *testStation, policy api.AddBmpRequest_MonitoringPolicy, sysName string) {
	t.Helper()
	err := srv.AddBmp(ctx, &api.AddBmpRequest{Address: "127.0.0.1", Port: st.port(), Policy: policy,
		StatisticsTimeout: 1, SysName: sysName, SysDescr: "GoBGP in a test"})
	if err != nil {
		t.Fatal(err)
	}
}

func startNode(t *testing.T, ctx context.Context, addr netip.Addr, port int32) *speaker.Speaker {
	t.Helper()
	sp, err := speaker.Start(ctx, speaker.Config{Local: addr, ASN: 65010, CollectorAddr: torAddr,
		CollectorPort: port, CollectorASN: 65000}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Stop)
	return sp
}

func TestGoBGPRouterAsSender(t *testing.T) {
	t.Parallel()
	const (
		n1v4 = "10.244.1.0/24 peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0"
		n1v6 = "fd00:10:244:1::/64 peer=127.0.1.11 nh=fd00::11 as=65010 id=127.0.1.11 path=[65010] pathid=0"
		n2v4 = "10.244.2.0/24 peer=127.0.1.12 nh=10.0.0.12 as=65010 id=127.0.1.12 path=[65010] pathid=0"
	)
	cases := []struct {
		name   string
		policy api.AddBmpRequest_MonitoringPolicy
		view   string
	}{
		{"pre-policy", api.AddBmpRequest_MONITORING_POLICY_PRE, viewPre},
		{"post-policy", api.AddBmpRequest_MONITORING_POLICY_POST, viewPost},
		{"all: post-policy judged, learned loc-rib paths skipped", api.AddBmpRequest_MONITORING_POLICY_ALL, viewPost},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // a station, a ToR and nodes of its own, on its own port
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			st := startStation(t)
			port := loopback.FreePort(t)
			tor := startTor(t, ctx, port, node1, node2)
			addBMP(t, ctx, tor, st, tc.policy, "tor1")
			n1, n2 := startNode(t, ctx, node1, port), startNode(t, ctx, node2, port)
			announceTwoNodes(t, ctx, n1, n2)
			waitRoutes(t, st.store, []string{n1v4, n1v6, n2v4})
			for _, p := range st.store.MonitoredPeers() {
				if p.BMP.SysName != "tor1" || p.BMP.Router != netip.MustParseAddr("127.0.0.1") {
					t.Errorf("peer %s: BMP %+v, want sysName tor1 from 127.0.0.1", p.Address, *p.BMP)
				}
				if p.Address.IsValid() && p.BMP.Judged && (p.BMP.View != tc.view || p.ASN != 65010) {
					t.Errorf("peer %s: judged view %q ASN %d, want %q 65010", p.Address, p.BMP.View, p.ASN, tc.view)
				}
			}
			if len(st.store.Peers()) != 0 {
				t.Errorf("BMP peers listed as direct peers: %+v", st.store.Peers())
			}

			// A withdrawal, then a session down, propagate.
			if err := n1.Withdraw(ctx, netip.MustParsePrefix("10.244.1.0/24"), netip.MustParseAddr("10.0.0.11")); err != nil {
				t.Fatal(err)
			}
			waitRoutes(t, st.store, []string{n1v6, n2v4})
			n2.Stop()
			waitRoutes(t, st.store, []string{n1v6})

			// The ToR stops monitoring: Termination, its peers are forgotten.
			if err := tor.DeleteBmp(ctx, &api.DeleteBmpRequest{Address: "127.0.0.1", Port: st.port()}); err != nil {
				t.Fatal(err)
			}
			waitRoutes(t, st.store, nil)
			wait.True(t, "the station to log the termination", 10*time.Second, func() bool {
				return strings.Contains(st.logs.String(), "BMP termination")
			})
		})
	}
}

// TestGoBGPNodeLocRIB plays a Cilium node (GoBGP, bmpServers with Loc-RIB
// monitoring): the node's own routes, next hop unspecified, belong to the
// node's address; the sysName names it. GoBGP v4's Loc-RIB Peer Up says
// ADD-PATH, and its routes carry their local path ID (1; v3 sent none).
func TestGoBGPNodeLocRIB(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := startStation(t)
	node := startGoBGP(t, ctx, &api.Global{Asn: 65010, RouterId: "127.0.1.13", ListenPort: -1})
	announce := func(prefix string) {
		t.Helper()
		if err := addPath(node, nodePath(prefix, "0.0.0.0")); err != nil {
			t.Fatal(err)
		}
	}
	announce("10.244.3.0/24")
	addBMP(t, ctx, node, st, api.AddBmpRequest_MONITORING_POLICY_LOCAL, "node3")
	announce("10.244.4.0/24")
	const line = " peer=127.0.0.1 nh=invalid IP as=65010 id=127.0.1.13 path=[] pathid=1"
	waitRoutes(t, st.store, []string{"10.244.3.0/24" + line, "10.244.4.0/24" + line})
	ps := st.store.MonitoredPeers()
	if len(ps) != 1 || ps[0].BMP.SysName != "node3" || ps[0].BMP.View != viewLocRIB {
		t.Fatalf("monitored peers %+v, want one loc-rib peer named node3", ps)
	}
}
