package bgp

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/gobgplog"
	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/rtr"
	"github.com/routewarden/routewarden/validator"
)

// rovCluster is an in-memory inventory for the RTR server: nodes with an AS
// each (node i: 10.244.i.0/24, AS 6501i) and an announced VIP.
type rovCluster struct {
	mu       sync.Mutex
	nodes    []int
	version  uint64
	unsynced bool // the inventory has not synced (unavailable): the server has no ROA set yet
}

func (c *rovCluster) Cluster(time.Time) (*validator.Cluster, uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := &validator.Cluster{IPAM: validator.IPAM{Mode: validator.IPAMClusterPool,
		PodRanges: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}}, NodeASNs: map[string][]uint32{},
		Services: []validator.Service{{Namespace: "shop", Name: "web", Announced: true,
			VIPs: []netip.Addr{netip.MustParseAddr("172.16.100.10")}}}}
	for _, i := range c.nodes {
		name := "node" + strconv.Itoa(i)
		out.Nodes = append(out.Nodes, validator.Node{Name: name})
		out.CiliumNodes = append(out.CiliumNodes, validator.CiliumNode{Name: name,
			PodCIDRs: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(i), 0}), 24)}})
		out.NodeASNs[name] = []uint32{uint32(65010 + i)}
	}
	return out, c.version, nil
}

func (c *rovCluster) InventoryStatus() validator.InventoryStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unsynced {
		return validator.InventoryStatus{Reason: "not synced yet"}
	}
	return validator.InventoryStatus{Synced: true, Available: true}
}

// TestGoBGPAsRTRClient: GoBGP's RTR client (AddRpki), which speaks RTR
// version 0, reads routewarden's ROAs and validates paths as BIRD does in
// cmd/routewarden's TestRTRToR; a deleted node's CIDR turns Invalid
// through the Serial Notify.
func TestGoBGPAsRTRClient(t *testing.T) {
	t.Parallel()
	inv := &rovCluster{nodes: []int{1, 2, 3}, version: 1}
	rs, s := startRTRAndGoBGP(t, inv)
	ctx := context.Background()
	// GoBGP connects once the server has its first ROA set, as before this
	// test ran beside others: a client that connected earlier got No Data,
	// and GoBGP v4.8.0 then had no ROAs a minute later (seen once).
	wait.True(t, "the RTR server's first ROA set", 30*time.Second, func() bool { return rs.Status().Ready })
	host, port, _ := net.SplitHostPort(rs.Addr())
	p, _ := strconv.Atoi(port)
	if err := s.AddRpki(ctx, &api.AddRpkiRequest{Address: host, Port: uint32(p), Lifetime: 3600}); err != nil {
		t.Fatal(err)
	}
	paths := []struct {
		prefix string
		as     uint32
		want   api.ValidationState
	}{
		{"10.244.1.0/24", 65011, api.ValidationState_VALIDATION_STATE_VALID},
		{"10.244.2.0/24", 65011, api.ValidationState_VALIDATION_STATE_INVALID},  // node2's CIDR from node1's AS
		{"10.244.77.0/24", 65012, api.ValidationState_VALIDATION_STATE_INVALID}, // unallocated
		{"10.244.3.0/24", 65013, api.ValidationState_VALIDATION_STATE_VALID},
		{"172.16.100.10/32", 65012, api.ValidationState_VALIDATION_STATE_VALID},
		{"203.0.113.0/24", 65011, api.ValidationState_VALIDATION_STATE_NOT_FOUND}, // outside every pool
	}
	for _, pa := range paths {
		if _, err := s.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{originPath(t, pa.prefix, pa.as)}}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, changed map[string]api.ValidationState) {
		t.Helper()
		wait.True(t, what, 60*time.Second, func() bool {
			got := map[string]api.ValidationState{}
			_ = s.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_GLOBAL, Family: bgp.RF_IPv4_UC},
				func(prefix bgp.NLRI, paths []*apiutil.Path) {
					for _, p := range paths {
						if p.Validation != nil {
							got[prefix.String()+" AS"+strconv.Itoa(int(originAS(p)))] = p.Validation.State
						}
					}
				})
			for _, pa := range paths {
				key := pa.prefix + " AS" + strconv.Itoa(int(pa.as))
				want := pa.want
				if c, ok := changed[key]; ok {
					want = c
				}
				if got[key] != want {
					t.Logf("%s: %s, want %s", key, got[key], want)
					return false
				}
			}
			return true
		})
	}
	check("GoBGP's validation states", nil)
	if cs := rs.Clients(); len(cs) != 1 || cs[0].Version != 0 {
		t.Errorf("clients %+v: want GoBGP, speaking RTR version 0 (RFC 6810)", cs)
	}
	inv.mu.Lock()
	inv.nodes, inv.version = []int{1, 2}, 2
	inv.mu.Unlock()
	check("node3's CIDR Invalid after the Serial Notify",
		map[string]api.ValidationState{"10.244.3.0/24 AS65013": api.ValidationState_VALIDATION_STATE_INVALID})
}

// startRTRAndGoBGP starts routewarden's RTR server over inv and a GoBGP
// server (AS 65000) to be its client; both stop when the test ends.
func startRTRAndGoBGP(t *testing.T, inv *rovCluster) (*rtr.Server, *server.BgpServer) {
	t.Helper()
	rs, err := rtr.New(rtr.Config{Listen: "127.0.0.1:0", MaxDropShare: 1, Refresh: time.Hour, Retry: 10 * time.Minute,
		Expire: 2 * time.Hour, Poll: 20 * time.Millisecond}, inv, zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rs.Run(ctx) }()
	t.Cleanup(func() { cancel(); _ = <-done }) // ends with the context's error

	s := server.NewBgpServer(gobgplog.Option(zerolog.Nop(), nil))
	go s.Serve()
	t.Cleanup(s.Stop)
	if err := s.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{Asn: 65000, RouterId: "127.0.0.2", ListenPort: -1}}); err != nil {
		t.Fatal(err)
	}
	return rs, s
}

// originPath is a path for prefix whose AS_PATH is just as.
func originPath(t *testing.T, prefix string, as uint32) *apiutil.Path {
	t.Helper()
	p, err := speaker.UnicastPath(netip.MustParsePrefix(prefix), netip.MustParseAddr("127.0.1.1"),
		bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{as})}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// originAS is the last AS of a path's AS_PATH.
func originAS(p *apiutil.Path) uint32 {
	for _, a := range p.Attrs {
		if ap, ok := a.(*bgp.PathAttributeAsPath); ok && len(ap.Value) > 0 {
			asns := ap.Value[len(ap.Value)-1].GetAS()
			return asns[len(asns)-1]
		}
	}
	return 0
}
