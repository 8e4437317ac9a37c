package cli

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

// TestAttributeMismatchRelayedE2E: routewarden run behind a ToR. A real
// GoBGP speaker at 127.0.4.1 (AS 65001, a dynamic range of role tor) relays
// node2's pod CIDR as a ToR does: AS path 65001 65010, with its policy's
// community 65001:666 in place of node2's 65010:100. A second speaker,
// node1's own session (127.0.3.11, role node by default), sends node1's pod
// CIDR with the same wrong communities. attribute-mismatch fires for node1's
// communities (judged: what the node sent), not for the relayed path's; the
// relayed path's origin AS is still judged: node2's local ASN is 65011 in
// the cluster, and its finding names the origin only.
func TestAttributeMismatchRelayedE2E(t *testing.T) {
	cluster, _ := podsIntentCluster(65010)
	cluster.NodeASNs["node2"] = []uint32{65011}
	cfg := bmpPipelineConfig(t, "127.0.3.0/24")
	cfg.BGP.DynamicNeighbors = append(cfg.BGP.DynamicNeighbors, config.DynamicNeighborConfig{Prefix: "127.0.4.0/24",
		PeerSettings: config.PeerSettings{Role: config.RoleToR}})
	p, ctx := startPipeline(t, cfg, cluster)
	wrong := speaker.Attrs{Communities: []string{"65001:666"}}
	for _, s := range []struct {
		local  string
		asn    uint32
		prefix string
		attrs  speaker.Attrs
	}{
		{"127.0.3.11", 65010, "10.244.1.0/24", wrong},
		{"127.0.4.1", 65001, "10.244.2.0/24", speaker.Attrs{Communities: wrong.Communities, ASPath: []uint32{65010}}},
	} {
		sp, err := speaker.Start(ctx, speaker.Config{Local: netip.MustParseAddr(s.local), ASN: s.asn,
			CollectorAddr: netip.MustParseAddr("127.0.0.1"), CollectorPort: int32(cfg.BGP.ListenPort),
			CollectorASN: 65000}, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sp.Stop)
		prefix := netip.MustParsePrefix(s.prefix)
		next := netip.AddrFrom4([4]byte{10, 0, 0, prefix.Addr().As4()[2] + 10})
		if err := sp.AnnounceWith(ctx, prefix, next, s.attrs); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"10.244.1.0/24 node1: communities 65001:666, expected 65010:100",
		"10.244.2.0/24 node2: origin AS 65010 (AS path 65001 65010)",
	}
	wait.For(t, "attribute-mismatch for node1's communities and the relayed path's origin AS only", 30*time.Second,
		func() error {
			var got []string
			for _, f := range p.loop.State().Findings {
				if f.Finding.Rule != validator.RuleAttributeMismatch {
					continue
				}
				got = append(got, fmt.Sprintf("%s %s: %s", f.Finding.Prefix, f.Finding.Node, f.Finding.Message))
			}
			slices.Sort(got)
			if len(got) != len(want) {
				return fmt.Errorf("got %q, want %q", got, want)
			}
			for i := range want {
				prefix, msg, _ := strings.Cut(want[i], ": ")
				if !strings.HasPrefix(got[i], prefix) || !strings.Contains(got[i], msg) ||
					i == 1 && strings.Contains(got[i], "communities") {
					return fmt.Errorf("got %q, want %q", got, want)
				}
			}
			return nil
		})
}
