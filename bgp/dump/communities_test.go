package dump

import (
	"fmt"
	"strings"
	"testing"
)

// TestCommunitiesAndLocalPref: gobgp -j and birdc show route all carry
// standard and large communities and LOCAL_PREF (the field names and forms
// they print them in).
func TestCommunitiesAndLocalPref(t *testing.T) {
	const want = "10.244.1.0/24 [65010:100 65535:65281] [65010:1:2 4200000000:0:7] pref 200 true"
	for _, tc := range []struct{ format, data, want string }{
		{"gobgp", `{"10.244.1.0/24":[{"nlri":{"prefix":"10.244.1.0/24"},"attrs":[{"type":3,"nexthop":"10.0.0.11"},` +
			`{"type":5,"value":200},{"type":8,"communities":[4260495460,4294967041]},{"type":32,"value":[` +
			`{"ASN":65010,"LocalData1":1,"LocalData2":2},{"ASN":4200000000,"LocalData1":0,"LocalData2":7}]}]}]}`, want},
		{"gobgp", `{"10.244.1.0/24":[{"nlri":{"prefix":"10.244.1.0/24"},"attrs":[{"type":3,"nexthop":"10.0.0.11"}]}]}`,
			"10.244.1.0/24 [] [] pref 0 false"},
		{"bird", "10.244.1.0/24        unicast [node1 12:00:00.000 from 127.0.1.11] * (100) [AS65010i]\n" +
			"\tvia 10.0.0.11 on lo\n\tType: BGP univ\n\tBGP.origin: IGP\n\tBGP.as_path: 65010\n" +
			"\tBGP.next_hop: 10.0.0.11\n\tBGP.local_pref: 200\n\tBGP.community: (65010,100) (65535,65281)\n" +
			"\tBGP.large_community: (65010, 1, 2) (4200000000, 0, 7)\n", want},
	} {
		rs, format, err := ReadStream(tc.format, strings.NewReader(tc.data), tc.format)
		if err != nil || format != tc.format || len(rs) != 1 {
			t.Fatalf("%s: %d routes, format %q, err %v", tc.format, len(rs), format, err)
		}
		r := rs[0]
		got := fmt.Sprintf("%s %v %v pref %d %v", r.Prefix, r.Communities, r.LargeCommunities, r.LocalPref, r.HasLocalPref)
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.format, got, tc.want)
		}
	}
}

// TestFRRDetailJSON reads what FRR 8.4's bgpd prints for `show bgp ipv4
// unicast json detail`: the communities scenario's healthy ToR table
// (testdata/policy/communities, taken by cmd/routewarden's
// TestCheckCommunities -update: four GoBGP speakers announce their pod CIDRs
// with 65010:100, no-export and 65010:1:1, node4 over iBGP with local
// preference 200, and a VIP). Each prefix's opening element is no path,
// well-known communities come by name, LOCAL_PREF only on the iBGP paths.
func TestFRRDetailJSON(t *testing.T) {
	rs, format, err := ReadFile("../../testdata/policy/communities/routes.healthy.frr.json", "auto")
	if err != nil || format != "frr" || len(rs) != 8 {
		t.Fatalf("%d routes, format %q, err %v", len(rs), format, err)
	}
	var got []string
	for _, r := range rs {
		if r.Prefix.Bits() == 24 {
			got = append(got, fmt.Sprintf("%s nh %s peer %s id %s path %v %v %v pref %d %v", r.Prefix, r.NextHop, r.Peer,
				r.RouterID, r.ASPath, r.Communities, r.LargeCommunities, r.LocalPref, r.HasLocalPref))
		}
	}
	want := []string{
		"10.244.1.0/24 nh 10.0.0.11 peer 127.0.1.11 id 127.0.1.11 path [65010] [65010:100 65535:65281] [65010:1:1] pref 0 false",
		"10.244.2.0/24 nh 10.0.0.12 peer 127.0.1.12 id 127.0.1.12 path [65010] [65010:100 65535:65281] [65010:1:1] pref 0 false",
		"10.244.3.0/24 nh 10.0.0.13 peer 127.0.1.13 id 127.0.1.13 path [65010] [65010:100 65535:65281] [65010:1:1] pref 0 false",
		"10.244.4.0/24 nh 10.0.0.14 peer 127.0.1.14 id 127.0.1.14 path [] [65010:100 65535:65281] [65010:1:1] pref 200 true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
