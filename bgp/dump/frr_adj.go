package dump

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// frrAdjTable is `show bgp [ipv4|ipv6 unicast] neighbor ADDR
// received-routes|advertised-routes json`: one path a prefix, the neighbor's
// Adj-RIB-In before policy (soft-reconfiguration inbound) or what is sent to
// it after policy. Neither names the neighbor; bgpLocalRouterId is the
// router's own.
type frrAdjTable struct {
	Received      map[string]frrAdjPath `json:"receivedRoutes"`
	Advertised    map[string]frrAdjPath `json:"advertisedRoutes"`
	LocalRouterID string                `json:"bgpLocalRouterId"`
}

type frrAdjPath struct {
	NextHop       string  `json:"nextHop"`
	NextHopGlobal string  `json:"nextHopGlobal"`
	Path          string  `json:"path"`
	LocPrf        *uint32 `json:"locPrf"`
}

// frrReceivedUnseen: received-routes prints no communities, and its locPrf
// is the router's inbound policy's (measured: a route-map setting
// local-preference 200 shows there), never what an eBGP neighbor sent.
const frrReceivedUnseen = noCommunity | validator.UnseenLocalPref

func (t frrAdjTable) adj() bool { return t.Received != nil || t.Advertised != nil }

// adjRoutes reads the paths of one neighbor: received from o.peer (which
// must be given: the output does not name it), or advertised by the router
// (whose router ID is bgpLocalRouterId; o.peer, when given, is its address on
// the session, what the neighbor sees as its peer).
func (t frrTable) adjRoutes(name string, o options) ([]validator.Route, error) {
	paths, key, unseen := t.Advertised, "advertisedRoutes", noCommunity|validator.UnseenASPath
	var routerID netip.Addr
	if t.Received != nil {
		if !o.peer.IsValid() {
			return nil, fmt.Errorf("%s: FRR's received-routes output does not name the neighbor the routes came "+
				"from: give its address after the file name, --routes %s@ADDR (the ADDR of `show bgp neighbor ADDR "+
				"received-routes json`)", name, name)
		}
		paths, key, unseen = t.Received, "receivedRoutes", frrReceivedUnseen
	} else {
		var err error
		if routerID, err = parseAddr(t.LocalRouterID); err != nil {
			return nil, fmt.Errorf("%s: JSON path $.bgpLocalRouterId: %w", name, err)
		}
	}
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	routes := make([]validator.Route, 0, len(keys))
	for _, k := range keys {
		rt, err := paths[k].route(k, unseen)
		if err != nil {
			return nil, fmt.Errorf("%s: JSON path $.%s[%q]: %w", name, key, k, err)
		}
		rt.Peer, rt.RouterID = o.peer, routerID
		routes = append(routes, rt)
	}
	return routes, nil
}

func (p frrAdjPath) route(key string, unseen validator.AttrSet) (validator.Route, error) {
	pf, err := netip.ParsePrefix(key)
	if err != nil {
		return validator.Route{}, fmt.Errorf("%q is not a prefix", key)
	}
	rt := validator.Route{Prefix: pf.Masked(), Attributes: &validator.Attributes{Unseen: unseen}}
	nh := p.NextHop
	if nh == "" {
		nh = p.NextHopGlobal
	}
	if rt.NextHop, err = parseAddr(nh); err != nil {
		return rt, fmt.Errorf("nextHop: %w", err)
	}
	for _, f := range strings.Fields(p.Path) {
		if as, err := strconv.ParseUint(strings.Trim(f, "{}()[],"), 10, 32); err == nil {
			rt.ASPath = append(rt.ASPath, uint32(as))
		}
	}
	if p.LocPrf != nil {
		rt.LocalPref, rt.HasLocalPref = *p.LocPrf, true
	}
	return rt, nil
}
