package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
)

// communityObjects are the Cilium BGP objects and the Service of the
// communities scenario (testdata/policy/communities/objects.yaml, cilium.io/v2).
func communityObjects(t *testing.T, c testkube.Cilium) string {
	t.Helper()
	if c.Minor() < 18 || c.BGPAPIVersion() != "cilium.io/v2" {
		t.Skipf("Cilium %s: the communities scenario needs 1.18 or later (BGP objects in cilium.io/v2)", c)
	}
	b, err := os.ReadFile(filepath.Join(communitiesDir, "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// communityAnnouncements are what node i (1..4) sends: its pod CIDR and
// shop/web's VIP with the attributes the advertisements set (node4, iBGP,
// with local preference 200), or, wrong, with five mistakes: node1 drops
// no-export (missing), node2 adds 65010:999 (extra) and sends the VIP without
// web-b's large community (the overlap of cilium/cilium#35721), node3 sends a
// wrong large community and node4 local preference 100.
func communityAnnouncements(wrong bool) map[int]map[string]speaker.Attrs {
	pref := func(p uint32) *uint32 { return &p }
	pod := func(std []string, large []string) speaker.Attrs {
		return speaker.Attrs{Communities: std, LargeCommunities: large}
	}
	podStd, podLarge := []string{"65010:100", "65535:65281"}, []string{"65010:1:1"}
	vip := speaker.Attrs{Communities: []string{"65010:200"}, LargeCommunities: []string{"65010:2:2"}}
	out := map[int]map[string]speaker.Attrs{}
	for i := 1; i <= 4; i++ {
		a := pod(podStd, podLarge)
		if i == 4 {
			a.LocalPref = pref(200)
		}
		out[i] = map[string]speaker.Attrs{nodeCIDR(i).String(): a, "172.16.100.10/32": vip}
	}
	if wrong {
		out[1]["10.244.1.0/24"] = pod([]string{"65010:100"}, podLarge)
		out[2]["10.244.2.0/24"] = pod(append(slices.Clone(podStd), "65010:999"), podLarge)
		out[2]["172.16.100.10/32"] = speaker.Attrs{Communities: vip.Communities}
		out[3]["10.244.3.0/24"] = pod(podStd, []string{"65010:1:2"})
		out[4]["10.244.4.0/24"] = speaker.Attrs{Communities: podStd, LargeCommunities: podLarge, LocalPref: pref(100)}
	}
	return out
}

// communityFindingsWanted are the findings of the wrong announcements: what
// the message and the hint say of each path.
var communityFindingsWanted = []string{
	"node1 10.244.1.0/24: communities 65010:100, expected 65010:100 65535:65281 | Missing 65535:65281.",
	"node2 10.244.2.0/24: communities 65010:100 65010:999 65535:65281, expected 65010:100 65535:65281 | Not expected: 65010:999.",
	"node3 10.244.3.0/24: large communities 65010:1:2, expected 65010:1:1 | Missing 65010:1:1. Not expected: 65010:1:2.",
	"node4 10.244.4.0/24: local preference 100, expected 200",
	"node2 172.16.100.10/32: large communities none, expected 65010:2:2 | Missing 65010:2:2. The CiliumBGPAdvertisements web-a, web-b overlap",
}

// communitySpeakers starts the four nodes' speakers towards a peer at
// addr:port (AS 65000); node4 speaks AS 65000 (iBGP), the others 65010.
func communitySpeakers(t *testing.T, addr netip.Addr, port int32) map[int]*speaker.Speaker {
	out := map[int]*speaker.Speaker{}
	for i := 1; i <= 4; i++ {
		asn := uint32(65010)
		if i == 4 {
			asn = 65000
		}
		s, err := speaker.Start(context.Background(), speaker.Config{Local: netip.MustParseAddr(fmt.Sprintf("127.0.1.%d", 10+i)),
			ASN: asn, CollectorAddr: addr, CollectorPort: port, CollectorASN: 65000}, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		t.Cleanup(func() { once.Do(s.Stop) })
		out[i] = s
	}
	return out
}

// sendCommunities has the speakers announce communityAnnouncements(wrong).
func sendCommunities(t *testing.T, speakers map[int]*speaker.Speaker, wrong bool) {
	t.Helper()
	for i, paths := range communityAnnouncements(wrong) {
		for p, a := range paths {
			if err := speakers[i].AnnounceWith(context.Background(), netip.MustParsePrefix(p), nodeAddr(i), a); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkCommunityFindings reports the wanted findings that got lacks.
func checkCommunityFindings(t *testing.T, got []communityFinding) {
	t.Helper()
	for _, want := range communityFindingsWanted {
		node, rest, _ := strings.Cut(want, " ")
		prefix, rest, _ := strings.Cut(rest, ": ")
		msg, hint, _ := strings.Cut(rest, " | ")
		i := slices.IndexFunc(got, func(f communityFinding) bool { return f.Node == node && f.Prefix == prefix })
		if i < 0 || !strings.Contains(got[i].Message, msg) || !strings.Contains(got[i].Hint, hint) {
			t.Errorf("%s %s: want message with %q and hint with %q, got %+v", node, prefix, msg, hint, got)
		}
	}
}

// TestAttributeMismatchCommunitiesE2E: a real kube-apiserver with the newest
// Cilium release's CRDs (1.18 or later) and communityObjects, routewarden
// run, four real GoBGP speakers as the nodes (node4 over iBGP). Healthy: every
// pod CIDR and the VIP carry what their advertisements set, and there is no
// finding. Then node1 drops no-export (missing), node2 adds 65010:999 (extra)
// and sends the VIP without web-b's large community (the overlap of
// cilium/cilium#35721), node3 sends a wrong large community and node4 local
// preference 100: attribute-mismatch fires for exactly those five paths,
// with expected and received in the message, and resolves after the repair.
func TestAttributeMismatchCommunitiesE2E(t *testing.T) {
	t.Parallel()
	c := testkube.NewestCilium(t)
	e := newE2EOn(t, c, 4, communityObjects(t, c))
	e.run(t, e2eOptions{})
	speakers := communitySpeakers(t, netip.MustParseAddr("127.0.0.1"), e.bgpPort)
	start := time.Now()
	expect := func(what string, want ...string) []communityFinding {
		t.Helper()
		var got []communityFinding
		wait.For(t, what, 60*time.Second, func() error {
			var err error
			var routes int
			if got, routes, err = communityFindings(e.api); err != nil {
				return err
			}
			keys := []string{}
			for _, f := range got {
				keys = append(keys, f.key())
			}
			if routes != 8 || !slices.Equal(keys, want) {
				return fmt.Errorf("%d routes, findings %q, want %q", routes, keys, want)
			}
			return nil
		})
		t.Logf("%5.1fs %s", time.Since(start).Seconds(), what)
		return got
	}
	sendCommunities(t, speakers, false)
	expect("no finding on the healthy cluster")
	sendCommunities(t, speakers, true)
	got := expect("attribute-mismatch on the five paths",
		"attribute-mismatch 10.244.1.0/24 node1", "attribute-mismatch 10.244.2.0/24 node2",
		"attribute-mismatch 10.244.3.0/24 node3", "attribute-mismatch 10.244.4.0/24 node4",
		"attribute-mismatch 172.16.100.10/32 node2")
	for _, f := range got {
		t.Logf("%s\n  %s\n  hint: %s", f.key(), f.Message, f.Hint)
	}
	checkCommunityFindings(t, got)
	sendCommunities(t, speakers, false)
	expect("every attribute-mismatch to resolve after the repair")
}

type communityFinding struct{ Rule, Prefix, Node, Message, Hint string }

func (f communityFinding) key() string { return f.Rule + " " + f.Prefix + " " + f.Node }

// communityFindings lists the findings, sorted by rule, prefix and node, and the routes held.
func communityFindings(api string) ([]communityFinding, int, error) {
	var f struct {
		WarmingUp bool `json:"warmingUp"`
		Summary   struct {
			Routes int `json:"routes"`
		} `json:"summary"`
		Findings []communityFinding `json:"findings"`
	}
	if err := getJSON(api+"/api/v1/findings", &f); err != nil {
		return nil, 0, err
	}
	if f.WarmingUp {
		return nil, 0, fmt.Errorf("warming up")
	}
	slices.SortFunc(f.Findings, func(a, b communityFinding) int { return strings.Compare(a.key(), b.key()) })
	return f.Findings, f.Summary.Routes, nil
}
