package wire

import gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"

// AppendCommunities appends a GoBGP COMMUNITIES attribute's values in their
// "ASN:VALUE" form (for readers of GoBGP's decoded messages: the route
// feed's irregular UPDATEs, MRT dumps).
func AppendCommunities(dst []string, a *gobgp.PathAttributeCommunities) []string {
	for _, c := range a.Value {
		dst = append(dst, Community(c))
	}
	return dst
}

// AppendLargeCommunities appends a GoBGP LARGE_COMMUNITY attribute's values
// in their "GLOBAL:LOCAL1:LOCAL2" form.
func AppendLargeCommunities(dst []string, a *gobgp.PathAttributeLargeCommunities) []string {
	for _, c := range a.Values {
		dst = append(dst, LargeCommunity(c.ASN, c.LocalData1, c.LocalData2))
	}
	return dst
}
