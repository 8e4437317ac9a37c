package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/dump"
	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/golden"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/testfrr"
	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
)

const communitiesDir = "../../testdata/policy/communities"

// TestCheckCommunities: check with Cilium's BGP objects from kubectl (the
// newest release's CRDs, the objects of TestAttributeMismatchCommunitiesE2E)
// and a real FRR ToR's `show bgp ipv4 unicast json detail`, to which four
// GoBGP nodes announce their pod CIDRs and shop/web's VIP (node4 over iBGP):
// healthy, no attribute-mismatch; wrong, exactly the five paths of
// communityAnnouncements(true). -update takes the objects and dumps again.
func TestCheckCommunities(t *testing.T) {
	if golden.Updating() {
		dumpCommunitiesScenario(t)
	}
	for _, tc := range []struct{ name, routes string }{{"healthy", "routes.healthy.frr.json"}, {"wrong", "routes.wrong.frr.json"}} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "check", "-o", "wide", "--fail-on", "never", "--families", "ipv4",
				"--cluster", filepath.Join(communitiesDir, "cluster.json"), "--routes", filepath.Join(communitiesDir, tc.routes))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden.Assert(t, filepath.Join(communitiesDir, "expected."+tc.name+".txt"), []byte(out))
			if tc.name == "healthy" {
				if strings.Contains(out, "warning") || strings.Contains(out, "critical") {
					t.Errorf("findings on the healthy scenario:\n%s", out)
				}
				return
			}
			if n := strings.Count(out, "attribute-mismatch"); n != len(communityFindingsWanted) {
				t.Errorf("%d attribute-mismatch findings, want %d:\n%s", n, len(communityFindingsWanted), out)
			}
			code, out, stderr = runCLI(t, "check", "-o", "json", "--fail-on", "never", "--families", "ipv4",
				"--cluster", filepath.Join(communitiesDir, "cluster.json"), "--routes", filepath.Join(communitiesDir, tc.routes))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			checkCommunityFindings(t, jsonCommunityFindings(t, out))
		})
	}
}

// jsonCommunityFindings reads check -o json's findings.
func jsonCommunityFindings(t *testing.T, out string) []communityFinding {
	t.Helper()
	var got struct {
		Findings []communityFinding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("check -o json: %v\n%s", err, out)
	}
	return got.Findings
}

// dumpCommunitiesScenario takes the cluster from kubectl and the routes from FRR.
func dumpCommunitiesScenario(t *testing.T) {
	env := testkube.Start(t)
	c := testkube.NewestCilium(t)
	env.InstallCilium(t, c)
	docs := []string{communityObjects(t, c)}
	for i := 1; i <= 4; i++ {
		docs = append(docs, testkube.NodeManifest(i), testkube.CiliumNodeManifest(i))
	}
	file := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Apply(t, file)
	out, err := env.Kubectl("get", "nodes,ciliumnodes,ciliumbgpclusterconfigs,ciliumbgpnodeconfigoverrides,"+
		"ciliumbgppeerconfigs,ciliumbgpadvertisements,services,endpointslices", "-A", "-o", "json")
	if err != nil {
		t.Fatalf("kubectl: %v\n%s", err, out)
	}
	writeFixture(t, communitiesDir, "cluster.json", out)

	tor := netip.MustParseAddr("127.0.2.1")
	port := loopback.FreePort(t)
	var conf strings.Builder
	fmt.Fprintf(&conf, "router bgp 65000\n bgp router-id %s\n no bgp ebgp-requires-policy\n", tor)
	for i := 1; i <= 4; i++ {
		n := fmt.Sprintf("127.0.1.%d", 10+i)
		if i == 4 {
			fmt.Fprintf(&conf, " neighbor %s remote-as internal\n", n)
		} else {
			fmt.Fprintf(&conf, " neighbor %s remote-as external\n neighbor %s ebgp-multihop 255\n", n, n)
		}
		fmt.Fprintf(&conf, " neighbor %s passive\n", n)
	}
	conf.WriteString(" address-family ipv4 unicast\n")
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&conf, "  neighbor 127.0.1.%d activate\n", 10+i)
	}
	conf.WriteString(" exit-address-family\nexit\n")
	vty := testfrr.StartBGPD(t, tor, port, conf.String())
	speakers := communitySpeakers(t, tor, port)
	for _, wrong := range []bool{false, true} {
		sendCommunities(t, speakers, wrong)
		name := map[bool]string{false: "routes.healthy.frr.json", true: "routes.wrong.frr.json"}[wrong]
		writeFixture(t, communitiesDir, name, frrDetailTable(t, vty, communityAnnouncements(wrong)))
	}
}

// frrDetailTable is FRR's `show bgp ipv4 unicast json detail` once it holds
// every announced path with the communities and local preference sent.
func frrDetailTable(t *testing.T, vty func(...string) (string, error), sent map[int]map[string]speaker.Attrs) string {
	t.Helper()
	want := map[string]string{}
	for i, paths := range sent {
		for p, a := range paths {
			lp := ""
			if a.LocalPref != nil {
				lp = fmt.Sprint(*a.LocalPref)
			} else if i == 4 {
				lp = "100" // GoBGP's default towards an iBGP peer
			}
			want[fmt.Sprintf("%s from 127.0.1.%d", p, 10+i)] = fmt.Sprint(slices.Sorted(slices.Values(a.Communities)), a.LargeCommunities, lp)
		}
	}
	var out string
	wait.For(t, "FRR to hold the paths as sent", 30*time.Second, func() error {
		var err error
		if out, err = vty("show bgp ipv4 unicast json detail"); err != nil {
			return err
		}
		rs, _, err := dump.Read("frr.json", bufio.NewReader(strings.NewReader(out)), "frr")
		if err != nil {
			return err
		}
		got := map[string]string{}
		for _, r := range rs {
			lp := ""
			if r.HasLocalPref {
				lp = fmt.Sprint(r.LocalPref)
			}
			got[fmt.Sprintf("%s from %s", r.Prefix, r.Peer)] = fmt.Sprint(slices.Sorted(slices.Values(r.Communities)), r.LargeCommunities, lp)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("FRR holds %v, sent %v", got, want)
		}
		return nil
	})
	return out
}
