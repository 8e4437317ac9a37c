package bgp

import (
	"fmt"
	"net/netip"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/apiutil"

	"github.com/routewarden/routewarden/bgp/dump"
	"github.com/routewarden/routewarden/validator"
)

// isEOR reports whether a watched path is an End-of-RIB marker.
func isEOR(p *api.Path) bool { return p.Nlri == nil && len(p.NlriBinary) == 0 }

// familyName is "ipv4-unicast" or "ipv6-unicast".
func familyName(f *api.Family) string { return apiutil.ToRouteFamily(f).String() }

// toRoute translates a GoBGP path into the validator's route model.
func toRoute(p *api.Path) (validator.Route, error) {
	nlri, err := apiutil.GetNativeNlri(p)
	if err != nil {
		return validator.Route{}, fmt.Errorf("decoding NLRI: %w", err)
	}
	pf, err := netip.ParsePrefix(nlri.String())
	if err != nil {
		return validator.Route{}, fmt.Errorf("prefix %q: %w", nlri.String(), err)
	}
	rt := validator.Route{Prefix: pf.Masked(), Stale: p.Stale, PathID: p.Identifier, PeerASN: p.SourceAsn}
	rt.Peer, _ = parseAddr(p.NeighborIp)
	rt.RouterID, _ = parseAddr(p.SourceId)
	if p.IsWithdraw {
		return rt, nil
	}
	attrs, err := apiutil.GetNativePathAttributes(p)
	if err != nil {
		return rt, fmt.Errorf("decoding path attributes of %s: %w", pf, err)
	}
	dump.ApplyAttributes(&rt, attrs)
	return rt, nil
}

func parseAddr(s string) (netip.Addr, error) {
	if s == "" || s == "<nil>" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(s)
	return a.Unmap(), err
}
