package speaker

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// Attrs are path attributes an announcement carries beyond origin and next
// hop, in their text forms, for callers that do not import GoBGP.
type Attrs struct {
	Communities      []string // standard, "ASN:VALUE"
	LargeCommunities []string // "GLOBAL:LOCAL1:LOCAL2"
	// LocalPref, when set, is sent to iBGP peers (GoBGP drops it towards eBGP ones).
	LocalPref *uint32
	// ASPath, when set, is the AS path the path arrived with, as a ToR
	// relays a node's path (the node's AS last); the speaker prepends its
	// own towards eBGP peers.
	ASPath []uint32
}

// AnnounceWith announces prefix with the given next hop and attributes
// (replacing the speaker's path for prefix, as Cilium does when an
// advertisement's attributes change).
func (s *Speaker) AnnounceWith(ctx context.Context, prefix netip.Prefix, nextHop netip.Addr, a Attrs) error {
	extra, err := a.pathAttributes()
	if err != nil {
		return fmt.Errorf("announcing %s from %s: %w", prefix, s.Addr, err)
	}
	p, err := UnicastPath(prefix, nextHop, extra...)
	if err == nil {
		_, err = s.srv.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{p}})
	}
	if err != nil {
		return fmt.Errorf("announcing %s from %s: %w", prefix, s.Addr, err)
	}
	return nil
}

func (a Attrs) pathAttributes() ([]bgp.PathAttributeInterface, error) {
	var out []bgp.PathAttributeInterface
	if len(a.Communities) > 0 {
		var cs []uint32
		for _, c := range a.Communities {
			v, err := parseNumbers(c, 2, 16)
			if err != nil {
				return nil, fmt.Errorf("community %q: %w", c, err)
			}
			cs = append(cs, v[0]<<16|v[1])
		}
		out = append(out, bgp.NewPathAttributeCommunities(cs))
	}
	if len(a.LargeCommunities) > 0 {
		var ls []*bgp.LargeCommunity
		for _, c := range a.LargeCommunities {
			v, err := parseNumbers(c, 3, 32)
			if err != nil {
				return nil, fmt.Errorf("large community %q: %w", c, err)
			}
			ls = append(ls, bgp.NewLargeCommunity(v[0], v[1], v[2]))
		}
		out = append(out, bgp.NewPathAttributeLargeCommunities(ls))
	}
	if a.LocalPref != nil {
		out = append(out, bgp.NewPathAttributeLocalPref(*a.LocalPref))
	}
	if len(a.ASPath) > 0 {
		out = append(out, bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{
			bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, a.ASPath)}))
	}
	return out, nil
}

// parseNumbers reads n colon-separated numbers of bits bits.
func parseNumbers(s string, n, bits int) ([]uint32, error) {
	parts := strings.Split(s, ":")
	if len(parts) != n {
		return nil, fmt.Errorf("want %d numbers separated by colons", n)
	}
	out := make([]uint32, n)
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 10, bits)
		if err != nil {
			return nil, err
		}
		out[i] = uint32(v)
	}
	return out, nil
}
