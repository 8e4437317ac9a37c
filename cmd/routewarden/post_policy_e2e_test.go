package main

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
	"github.com/routewarden/routewarden/demo"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/testfrr"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

// TestAttributeMismatchPostPolicyE2E: a real FRR 8.4 ToR whose inbound
// route-map adds a community to node2's routes sends BMP pre- and
// post-policy to routewarden run's pipeline. The API shows node2's pod CIDR
// with the ToR's community post-policy only, and attribute-mismatch does not
// fire for it (the ToR's own policy); node1's wrong local ASN (65011 in the
// cluster, 65010 on the wire) still fires, on its post-policy path.
func TestAttributeMismatchPostPolicyE2E(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tor, n1, n2 := netip.MustParseAddr("127.0.2.1"), netip.MustParseAddr("127.0.1.11"), netip.MustParseAddr("127.0.1.12")
	cluster := twoNodes()
	cluster.NodeASNs = map[string][]uint32{"node1": {65011}, "node2": {65010}}
	pods := &validator.AttributeIntent{Communities: []string{"65010:100"}, Advertisements: []string{"pods"}}
	cluster.Advertised = &validator.AdvertisedAttributes{NodeGroup: map[string]int{"node1": 0, "node2": 0},
		Groups: []validator.AdvertisedGroup{{PodCIDR: pods}}}
	cfg := bmpPipelineConfig(t, "127.0.3.0/24")
	p, err := newPipeline(cfg, demo.NewCluster(cluster), nil, zerolog.Nop(), newRegistry())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	_, bmpPort, _ := net.SplitHostPort(cfg.BGP.BMP.Listen)
	station, _ := strconv.ParseUint(bmpPort, 10, 32)
	port := loopback.FreePort(t)
	conf := testfrr.PrePolicy(testfrr.BMPConfig(t.TempDir(), tor, uint32(station), n1, n2), n1, n2)
	testfrr.StartBGPD(t, tor, port, testfrr.InboundCommunity(conf, n2, "tag-in", "65000:666"))
	for _, n := range []struct {
		addr       netip.Addr
		cidr, next string
	}{{n1, "10.244.1.0/24", "10.0.0.11"}, {n2, "10.244.2.0/24", "10.0.0.12"}} {
		sp, err := speaker.Start(ctx, speaker.Config{Local: n.addr, ASN: 65010, CollectorAddr: tor,
			CollectorPort: port, CollectorASN: 65000}, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sp.Stop)
		err = sp.AnnounceWith(ctx, netip.MustParsePrefix(n.cidr), netip.MustParseAddr(n.next),
			speaker.Attrs{Communities: pods.Communities})
		if err != nil {
			t.Fatal(err)
		}
	}
	api := "http://" + p.http.Addr() + "/api/v1/routes?prefix=10.244.2.0/24&view="
	wait.For(t, "node2's CIDR with the ToR's community post-policy only", 30*time.Second, func() error {
		pre, post := viewCommunities(t, api+"pre-policy"), viewCommunities(t, api+"post-policy")
		if pre != "65010:100" || post != "65000:666 65010:100" {
			return fmt.Errorf("communities pre-policy %q, post-policy %q", pre, post)
		}
		return nil
	})
	wait.For(t, "attribute-mismatch for node1's origin AS only", 30*time.Second, func() error {
		var got []string
		for _, f := range p.loop.State().Findings {
			if f.Finding.Rule == validator.RuleAttributeMismatch {
				got = append(got, fmt.Sprintf("%s %s %t", f.Finding.Prefix, f.Finding.Node,
					strings.Contains(f.Finding.Message, "origin AS 65010")))
			}
		}
		if want := []string{"10.244.1.0/24 node1 true"}; !slices.Equal(got, want) {
			return fmt.Errorf("got %q, want %q; all findings %+v", got, want, p.loop.State().Findings)
		}
		return nil
	})
}

// viewCommunities is the communities of the routes an /api/v1/routes?view= URL lists, joined.
func viewCommunities(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Routes []struct{ Communities []string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range page.Routes {
		out = append(out, r.Communities...)
	}
	return strings.Join(out, " ")
}
