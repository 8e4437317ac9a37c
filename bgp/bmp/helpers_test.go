package bmp

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/internal/logbuf"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

// newGoBGP makes a GoBGP server; without a logger it logs nothing.
func newGoBGP() *server.BgpServer { return server.NewBgpServer() }
func stopGoBGP(s *server.BgpServer) {
	s.Stop() // StopBgp, then the rest
}
func families() []api.Family_Afi           { return []api.Family_Afi{api.Family_AFI_IP, api.Family_AFI_IP6} }
func unicast(a api.Family_Afi) *api.Family { return &api.Family{Afi: a, Safi: api.Family_SAFI_UNICAST} }

// startGoBGP runs a GoBGP server with global configuration g until the test ends.
func startGoBGP(t *testing.T, ctx context.Context, g *api.Global) *server.BgpServer {
	t.Helper()
	srv := newGoBGP()
	go srv.Serve()
	t.Cleanup(func() { stopGoBGP(srv) })
	if err := srv.StartBgp(ctx, &api.StartBgpRequest{Global: g}); err != nil {
		t.Fatal(err)
	}
	return srv
}

// unicastAfiSafis enables IPv4 and IPv6 unicast on a peer, with ADD-PATH
// configured as addPaths (nil: none).
func unicastAfiSafis(addPaths *api.AddPathsConfig) []*api.AfiSafi {
	var afis []*api.AfiSafi
	for _, f := range families() {
		a := &api.AfiSafi{Config: &api.AfiSafiConfig{Family: unicast(f), Enabled: true}}
		if addPaths != nil {
			a.AddPaths = &api.AddPaths{Config: addPaths}
		}
		afis = append(afis, a)
	}
	return afis
}

// testStation runs a station on a free loopback port with a fresh store.
type testStation struct {
	*Station
	store *rib.Store
	logs  *logbuf.Buffer
	reg   *prometheus.Registry
}

func startStation(t testing.TB, allowed ...netip.Prefix) *testStation {
	t.Helper()
	st, stop := runStation(t, allowed...)
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("station log:\n%s", st.logs.String())
		}
	})
	return st
}

// runStation starts a station; stop ends it and waits for it.
func runStation(t testing.TB, allowed ...netip.Prefix) (*testStation, func()) {
	t.Helper()
	logs := &logbuf.Buffer{}
	store := rib.NewStore()
	reg := prometheus.NewRegistry()
	st, err := New(Config{Listen: "127.0.0.1:0", AllowedSources: allowed}, store, zerolog.New(logs), reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- st.Run(ctx) }()
	stop := func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("station: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("station did not stop")
		}
	}
	return &testStation{Station: st, store: store, logs: logs, reg: reg}, stop
}

// dial connects to the station and writes stream (if any); the connection is
// closed when the test ends.
func (s *testStation) dial(t testing.TB, stream []byte) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if len(stream) > 0 {
		if _, err := conn.Write(stream); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

func (s *testStation) port() uint32 {
	_, p, _ := net.SplitHostPort(s.Addr())
	n, _ := strconv.Atoi(p)
	return uint32(n)
}

// routes renders the store's routes as sorted "prefix peer=… nh=… as=… id=… path=…" lines.
func routes(s *rib.Store) []string {
	rs, _ := s.Routes()
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, routeLine(r))
	}
	slices.Sort(out)
	return out
}

func routeLine(r validator.Route) string {
	return fmt.Sprintf("%s peer=%s nh=%s as=%d id=%s path=[%s] pathid=%d", r.Prefix, r.Peer, r.NextHop, r.PeerASN,
		r.RouterID, r.ASPathString(), r.PathID)
}

// waitRoutes waits until the store holds exactly want (sorted).
func waitRoutes(t testing.TB, s *rib.Store, want []string) {
	t.Helper()
	slices.Sort(want)
	wait.For(t, "the store to hold "+strings.Join(want, "; "), 30*time.Second, func() error {
		if got := routes(s); !slices.Equal(got, want) {
			return fmt.Errorf("holds\n  %s", strings.Join(got, "\n  "))
		}
		return nil
	})
}
