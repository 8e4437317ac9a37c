package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/demo"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/testfrr"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

// TestFilteredAtToRE2E: a real FRR 8.4 ToR monitors two GoBGP nodes and sends
// BMP pre- and post-policy to routewarden run's pipeline. A prefix-list drops
// node2's own pod CIDR: filtered-at-tor fires for exactly that CIDR (and the
// API shows the path pre-policy, not post-policy); fixing the prefix-list
// resolves it.
func TestFilteredAtToRE2E(t *testing.T) {
	n2 := labNodes[1]
	p, vty := torLab(t, twoNodes(), func(conf string) string { return testfrr.InboundPrefixList(conf, n2, "node2-in") },
		speaker.Attrs{})
	api := "http://" + p.http.Addr() + "/api/v1/routes?prefix=10.244.2.0/24&view="
	wait.For(t, "node2's CIDR in both views", 30*time.Second, func() error {
		if got := viewRouters(t, api+"pre-policy") + viewRouters(t, api+"post-policy"); got != "127.0.0.1127.0.0.1" {
			return fmt.Errorf("routers %q", got)
		}
		return nil
	})
	waitFilteredFindings(t, p, nil)

	if err := testfrr.Deny(vty, "node2-in", "10.244.2.0/24", n2, false); err != nil {
		t.Fatal(err)
	}
	waitFilteredFindings(t, p, []string{"10.244.2.0/24 node2 127.0.1.12"})
	if pre, post := viewRouters(t, api+"pre-policy"), viewRouters(t, api+"post-policy"); pre != "127.0.0.1" || post != "" {
		t.Errorf("dropped path: pre-policy on %q, post-policy on %q; want only pre-policy, on 127.0.0.1", pre, post)
	}

	if err := testfrr.Deny(vty, "node2-in", "10.244.2.0/24", n2, true); err != nil {
		t.Fatal(err)
	}
	waitFilteredFindings(t, p, nil)
}

// labNodes are the GoBGP speakers of torLab: node1 and node2 of twoNodes.
var labNodes = []netip.Addr{netip.MustParseAddr("127.0.1.11"), netip.MustParseAddr("127.0.1.12")}

// torLab runs routewarden run's pipeline on cluster and a real FRR 8.4 ToR
// (127.0.2.1, configured by BMPConfig, then policy) sending it BMP pre- and
// post-policy of labNodes, GoBGP speakers announcing their pod CIDRs with
// attrs. It returns the pipeline and the ToR's vtysh; both stop with the test.
func torLab(t *testing.T, cluster validator.Cluster, policy func(conf string) string,
	attrs speaker.Attrs) (*pipeline, func(...string) (string, error)) {
	t.Helper()
	tor := netip.MustParseAddr("127.0.2.1")
	cfg := bmpPipelineConfig(t, "127.0.3.0/24")
	p, ctx := startPipeline(t, cfg, cluster)
	_, bmpPort, _ := net.SplitHostPort(cfg.BGP.BMP.Listen)
	station, _ := strconv.ParseUint(bmpPort, 10, 32)
	port := loopback.FreePort(t)
	conf := testfrr.PrePolicy(testfrr.BMPConfig(t.TempDir(), tor, uint32(station), labNodes...), labNodes...)
	vty := testfrr.StartBGPD(t, tor, port, policy(conf))
	for i, n := range labNodes {
		sp, err := speaker.Start(ctx, speaker.Config{Local: n, ASN: 65010, CollectorAddr: tor,
			CollectorPort: port, CollectorASN: 65000}, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sp.Stop)
		cidr, next := cluster.Nodes[i].PodCIDRs[0], cluster.Nodes[i].Addresses[0]
		if err := sp.AnnounceWith(ctx, cidr, next, attrs); err != nil {
			t.Fatal(err)
		}
	}
	return p, vty
}

// startPipeline runs routewarden run's pipeline with cfg on cluster until
// the test ends (3 minutes at most, the context returned).
func startPipeline(t *testing.T, cfg *config.Config, cluster validator.Cluster) (*pipeline, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	p, err := newPipeline(cfg, demo.NewCluster(cluster), nil, zerolog.Nop(), newRegistry())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return p, ctx
}

// twoNodes is node1 (10.0.0.11, 10.244.1.0/24) and node2 (10.0.0.12, 10.244.2.0/24).
func twoNodes() validator.Cluster {
	c := validator.Cluster{IPAM: validator.IPAM{Mode: validator.IPAMClusterPool, ModeSource: "test",
		PodRanges: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}}}
	for i, name := range []string{"node1", "node2"} {
		// Its address, and the one its BGP session comes from (labNodes):
		// the ToR's pre-policy paths of that session are what it sent.
		as := []netip.Addr{netip.AddrFrom4([4]byte{10, 0, 0, byte(11 + i)}), labNodes[i]}
		cidr := []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(1 + i), 0}), 24)}
		c.Nodes = append(c.Nodes, validator.Node{Name: name, Addresses: as, PodCIDRs: cidr, Ready: true})
		c.CiliumNodes = append(c.CiliumNodes, validator.CiliumNode{Name: name, Addresses: as, PodCIDRs: cidr})
	}
	return c
}

// viewRouters is the routers of the routes an /api/v1/routes?view= URL lists, joined.
func viewRouters(t *testing.T, url string) string {
	out := ""
	for _, r := range viewRoutes(t, url) {
		out += r.Router
	}
	return out
}

// viewCommunities is the communities of the routes an /api/v1/routes?view= URL lists, joined.
func viewCommunities(t *testing.T, url string) string {
	var out []string
	for _, r := range viewRoutes(t, url) {
		out = append(out, r.Communities...)
	}
	return strings.Join(out, " ")
}

type viewRoute struct {
	Router      string
	Communities []string
}

// viewRoutes is the routes an /api/v1/routes?view= URL lists.
func viewRoutes(t *testing.T, url string) []viewRoute {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct{ Routes []viewRoute }
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	return page.Routes
}

// waitFilteredFindings waits until the loop's filtered-at-tor findings are
// want ("prefix node peer").
func waitFilteredFindings(t *testing.T, p *pipeline, want []string) {
	t.Helper()
	wait.For(t, fmt.Sprintf("filtered-at-tor findings %q", want), 30*time.Second, func() error {
		var got []string
		for _, f := range p.loop.State().Findings {
			if f.Finding.Rule == validator.RuleFilteredAtToR {
				got = append(got, fmt.Sprintf("%s %s %s", f.Finding.Prefix, f.Finding.Node, f.Finding.Peer))
			}
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("got %q; all findings %+v", got, p.loop.State().Findings)
		}
		return nil
	})
}
