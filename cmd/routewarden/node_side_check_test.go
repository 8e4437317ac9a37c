package main

import (
	"path/filepath"
	"testing"
)

// TestCheckNodeSideJudgedWithToRRoutes: more information never means fewer
// detections. The node-side table (what the nodes sent, --routes: real FRR
// `show bgp ipv4 unicast json detail` with the five wrong paths of
// TestCheckCommunities) beside a ToR table (--tor-routes, post-policy) is
// judged in full: the same five attribute-mismatch findings as without
// --tor-routes.
func TestCheckNodeSideJudgedWithToRRoutes(t *testing.T) {
	cluster := filepath.Join(communitiesDir, "cluster.json")
	wrong := filepath.Join(communitiesDir, "routes.wrong.frr.json")
	for _, args := range [][]string{{"--routes", wrong}, {"--routes", wrong, "--tor-routes", wrong}} {
		code, out, stderr := runCLI(t, append([]string{"check", "-o", "json", "--fail-on", "never",
			"--families", "ipv4", "--cluster", cluster}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		fs := jsonCommunityFindings(t, out)
		if len(fs) != len(communityFindingsWanted) {
			t.Errorf("%v: %d findings, want %d:\n%s", args, len(fs), len(communityFindingsWanted), out)
		}
		checkCommunityFindings(t, fs)
	}
}
