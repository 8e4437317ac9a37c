package cli

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/speaker"
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
	cluster, pods := podsIntentCluster(65011)
	p, _ := torLab(t, cluster, func(conf string) string {
		return testfrr.InboundCommunity(conf, labNodes[1], "tag-in", "65000:666")
	}, speaker.Attrs{Communities: pods.Communities})
	api := "http://" + p.http.Addr() + "/api/v1/routes?prefix=10.244.2.0/24&view="
	wait.For(t, "node2's CIDR with the ToR's community post-policy only", 30*time.Second, func() error {
		pre, post := viewCommunities(t, api+"pre-policy"), viewCommunities(t, api+"post-policy")
		if pre != "65010:100" || post != "65000:666 65010:100" {
			return fmt.Errorf("communities pre-policy %q, post-policy %q", pre, post)
		}
		return nil
	})
	waitAttributeFindings(t, p, "attribute-mismatch for node1's origin AS only", "origin AS 65010",
		"10.244.1.0/24 node1 true")
}

// TestAttributeMismatchPrePolicyE2E: the same FRR 8.4 ToR, BMP pre- and
// post-policy, tagging node2's routes with 65000:666 by its inbound policy;
// both nodes send 65010:999 where their advertisement sets 65010:100. The
// rules judge the post-policy view, and attribute-mismatch judges what the
// nodes sent, the pre-policy view: it fires for both pod CIDRs with the
// communities as sent (not the ToR's tag), once each.
func TestAttributeMismatchPrePolicyE2E(t *testing.T) {
	cluster, _ := podsIntentCluster(65010)
	p, _ := torLab(t, cluster, func(conf string) string {
		return testfrr.InboundCommunity(conf, labNodes[1], "tag-in", "65000:666")
	}, speaker.Attrs{Communities: []string{"65010:999"}})
	api := "http://" + p.http.Addr() + "/api/v1/routes?prefix=10.244.2.0/24&view="
	wait.For(t, "node2's CIDR with the ToR's community post-policy only", 30*time.Second, func() error {
		if pre, post := viewCommunities(t, api+"pre-policy"), viewCommunities(t, api+"post-policy"); pre != "65010:999" ||
			post != "65000:666 65010:999" {
			return fmt.Errorf("communities pre-policy %q, post-policy %q", pre, post)
		}
		return nil
	})
	waitAttributeFindings(t, p, "attribute-mismatch for both nodes' communities as sent",
		"with communities 65010:999, expected 65010:100 (as router ", "10.244.1.0/24 node1 true", "10.244.2.0/24 node2 true")
}

// podsIntentCluster is twoNodes whose pod CIDRs' advertisement pods sets
// community 65010:100, node1 of local ASN node1AS, node2 of 65010.
func podsIntentCluster(node1AS uint32) (validator.Cluster, *validator.AttributeIntent) {
	cluster := twoNodes()
	cluster.NodeASNs = map[string][]uint32{"node1": {node1AS}, "node2": {65010}}
	pods := &validator.AttributeIntent{Communities: []string{"65010:100"}, Advertisements: []string{"pods"}}
	cluster.Advertised = &validator.AdvertisedAttributes{NodeGroup: map[string]int{"node1": 0, "node2": 0},
		Groups: []validator.AdvertisedGroup{{PodCIDR: pods}}}
	return cluster, pods
}

// waitAttributeFindings waits until the attribute-mismatch findings are
// want, each "prefix node true" when its message contains msg.
func waitAttributeFindings(t *testing.T, p *pipeline, what, msg string, want ...string) {
	t.Helper()
	wait.For(t, what, 30*time.Second, func() error {
		var got []string
		for _, f := range p.loop.State().Findings {
			if f.Finding.Rule == validator.RuleAttributeMismatch {
				got = append(got, fmt.Sprintf("%s %s %t", f.Finding.Prefix, f.Finding.Node,
					strings.Contains(f.Finding.Message, msg)))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			return fmt.Errorf("got %q, want %q; all findings %+v", got, want, p.loop.State().Findings)
		}
		return nil
	})
}
