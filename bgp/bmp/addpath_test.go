package bmp

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/wait"
)

// addPathNode is a bare GoBGP node that sends ADD-PATH to the ToR at torAddr:port.
func addPathNode(t *testing.T, ctx context.Context, addr netip.Addr, port int32) *server.BgpServer {
	t.Helper()
	srv := startGoBGP(t, ctx, &api.Global{Asn: 65010, RouterId: addr.String(), ListenPort: -1})
	err := srv.AddPeer(ctx, &api.AddPeerRequest{Peer: &api.Peer{
		Conf:         &api.PeerConf{NeighborAddress: torAddr.String(), PeerAsn: 65000},
		Transport:    &api.Transport{LocalAddress: addr.String(), RemotePort: uint32(port)},
		EbgpMultihop: &api.EbgpMultihop{Enabled: true, MultihopTtl: 255},
		Timers:       &api.Timers{Config: &api.TimersConfig{ConnectRetry: 1, HoldTime: 9, KeepaliveInterval: 3}},
		AfiSafis:     unicastAfiSafis(&api.AddPathsConfig{SendMax: 8}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func nodePath(prefix, nh string) *apiutil.Path {
	p, err := speaker.UnicastPath(netip.MustParsePrefix(prefix), netip.MustParseAddr(nh))
	if err != nil {
		panic(err)
	}
	return p
}

func addPath(srv *server.BgpServer, p *apiutil.Path) error {
	_, err := srv.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{p}})
	return err
}

func deletePath(srv *server.BgpServer, p *apiutil.Path) error {
	return srv.DeletePath(apiutil.DeletePathRequest{Paths: []*apiutil.Path{p}})
}

// TestGoBGPAddPath: a node sends ADD-PATH to a GoBGP ToR that monitors it
// (pre-policy). GoBGP's BMP puts no path IDs in its initial dump but the
// received ones in live messages; both parse, and a path announced before the
// BMP session is withdrawn by a live message.
func TestGoBGPAddPath(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := startStation(t)
	port := loopback.FreePort(t)
	tor := startTor(t, ctx, port)
	if err := tor.AddPeer(ctx, &api.AddPeerRequest{Peer: torPeer(node1, &api.AddPathsConfig{Receive: true})}); err != nil {
		t.Fatal(err)
	}
	node := addPathNode(t, ctx, node1, port)
	if err := addPath(node, nodePath("10.244.1.0/24", "10.0.0.11")); err != nil {
		t.Fatal(err)
	}
	// Wait until the ToR has it, then start monitoring: it comes in the initial dump.
	waitFor(t, ctx, func() bool {
		n := 0
		_ = tor.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_GLOBAL, Family: gobgp.RF_IPv4_UC},
			func(gobgp.NLRI, []*apiutil.Path) { n++ })
		return n == 1
	})
	addBMP(t, ctx, tor, st, api.AddBmpRequest_MONITORING_POLICY_PRE, "tor1")
	const line = " peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid="
	waitRoutes(t, st.store, []string{"10.244.1.0/24" + line + "0"})
	if err := addPath(node, nodePath("10.244.2.0/24", "10.0.0.11")); err != nil {
		t.Fatal(err)
	}
	rs := waitRoutesPrefix(t, st, "10.244.2.0/24")
	if strings.HasSuffix(rs, "pathid=0") {
		t.Fatalf("live path without the ID GoBGP put in it: %s", rs)
	}
	if err := deletePath(node, nodePath("10.244.1.0/24", "10.0.0.11")); err != nil {
		t.Fatal(err)
	}
	waitRoutes(t, st.store, []string{rs})
}

func waitRoutesPrefix(t *testing.T, st *testStation, prefix string) string {
	t.Helper()
	return wait.Value(t, "a route of "+prefix, 30*time.Second, func() (string, error) {
		for _, r := range routes(st.store) {
			if strings.HasPrefix(r, prefix+" ") {
				return r, nil
			}
		}
		return "", errors.New("none")
	})
}

// waitFor waits until cond holds, for 30s unless ctx ends first.
func waitFor(t *testing.T, ctx context.Context, cond func() bool) {
	t.Helper()
	wait.For(t, "the condition", 30*time.Second, func() error {
		if err := ctx.Err(); err != nil {
			t.Fatal(err)
		}
		if !cond() {
			return errors.New("does not hold")
		}
		return nil
	})
}
