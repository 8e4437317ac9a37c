package dump

import (
	"fmt"
	"strings"
	"testing"
)

// TestCommunitiesAndLocalPref: each text format carries standard and large
// communities and LOCAL_PREF where it prints them (the field names and forms
// of gobgp -j, FRR's show bgp json and birdc show route all).
func TestCommunitiesAndLocalPref(t *testing.T) {
	const want = "10.244.1.0/24 [65010:100 65535:65281] [65010:1:2 4200000000:0:7] pref 200 true"
	for _, tc := range []struct{ format, data, want string }{
		{"gobgp", `{"10.244.1.0/24":[{"nlri":{"prefix":"10.244.1.0/24"},"attrs":[{"type":3,"nexthop":"10.0.0.11"},` +
			`{"type":5,"value":200},{"type":8,"communities":[4260495460,4294967041]},{"type":32,"value":[` +
			`{"ASN":65010,"LocalData1":1,"LocalData2":2},{"ASN":4200000000,"LocalData1":0,"LocalData2":7}]}]}]}`, want},
		{"gobgp", `{"10.244.1.0/24":[{"nlri":{"prefix":"10.244.1.0/24"},"attrs":[{"type":3,"nexthop":"10.0.0.11"}]}]}`,
			"10.244.1.0/24 [] [] pref 0 false"},
		{"frr", `{"routes":{"10.244.1.0/24":[{"network":"10.244.1.0/24","peerId":"127.0.1.11","path":"65010",` +
			`"locPrf":200,"community":{"string":"65010:100 no-export","list":["65010:100","65535:65281"]},` +
			`"largeCommunity":{"string":"65010:1:2 4200000000:0:7","list":["65010:1:2","4200000000:0:7"]},` +
			`"nexthops":[{"ip":"10.0.0.11","afi":"ipv4","used":true}]}]}}`, want},
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
