package dump

import (
	"fmt"
	"slices"
	"testing"
)

// TestReadMRTGoBGPIPv6: gobgpd 4.8.0's table dump (testdata/mrt, taken
// from a real gobgpd holding its own ::/0 and 0.0.0.0/0 and a GoBGP peer's
// routes) writes AFI/SAFI before the prefix of its IPv6 RIB records.
func TestReadMRTGoBGPIPv6(t *testing.T) {
	cases := []struct {
		file string
		want []string
	}{
		{"testdata/mrt/gobgpd-4.8.0-ipv6.mrt", []string{
			"0.0.0.0/0 via 0.0.0.0 from 0.0.0.0",
			"10.1.0.0/24 via 127.0.0.2 from 127.0.0.2",
			"2001:db8:1::/64 via 2001:db8::2 from 127.0.0.2",
			"2001:db8:2::/64 via 2001:db8::2 from 127.0.0.2",
			"::/0 via :: from 0.0.0.0",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			routes, _, err := ReadFile(tc.file, "mrt")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range routes {
				got = append(got, fmt.Sprintf("%s via %s from %s", r.Prefix, r.NextHop, r.Peer))
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
