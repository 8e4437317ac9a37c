package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedDumps checks the committed dumps of every scenario against its
// spec, without running any daemon (same as routegen -verify-only).
func TestCommittedDumps(t *testing.T) {
	specs, err := filepath.Glob("../../testdata/scenarios/*/routes.spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) == 0 {
		t.Skip("no scenarios")
	}
	for _, s := range specs {
		dir := filepath.Dir(s)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, "routes.mrt")); os.IsNotExist(err) {
				t.Skip("dumps not generated yet")
			}
			spec, err := loadSpec(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := verifyDir(spec, dir); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestParseBIRDResolvedLayout(t *testing.T) {
	// Layout of a route whose next hop BIRD could resolve (from a run with
	// -bird-resolve-via-lo), plus a second path of the same prefix.
	in := `BIRD 2.0.12 ready.
Table master4:
10.96.0.10/32        unicast [node2 02:26:58.853 from 127.0.1.12] * (100/?) [AS65020i]
	dev lo
	Type: BGP univ
	BGP.origin: IGP
	BGP.as_path: 65020
	BGP.next_hop: 10.0.0.12
	BGP.local_pref: 100
                     unicast [node3 02:26:59.128 from 127.0.1.13] (100/?) [AS65030i]
	via 10.0.0.13 on eth0
	Type: BGP univ
	BGP.origin: IGP
	BGP.as_path: 65030
	BGP.next_hop: 10.0.0.13
	BGP.local_pref: 100
`
	got, err := parseBIRD([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := pairSet{}
	_ = want.add("10.96.0.10/32", "10.0.0.12", "127.0.1.12")
	_ = want.add("10.96.0.10/32", "10.0.0.13", "127.0.1.13")
	if d := want.diff(got); d != "" {
		t.Fatal(d)
	}
}

// TestParseGoBGPMRT: a real gobgpd 4.8.0 table dump (its own ::/0 and
// 0.0.0.0/0, a GoBGP peer's routes), whose IPv6 RIB records carry AFI/SAFI
// and whose local peer has no address.
func TestParseGoBGPMRT(t *testing.T) {
	cases := []struct {
		file string
		want int
	}{{"../../bgp/dump/testdata/mrt/gobgpd-4.8.0-ipv6.mrt", 5}}
	for _, tc := range cases {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := parseMRTFile(b)
		if err != nil || len(ps) != tc.want {
			t.Errorf("%s: %d pairs (%v), want %d: %v", tc.file, len(ps), err, tc.want, ps)
		}
	}
}
