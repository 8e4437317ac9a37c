package dump

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// frrTable is `show bgp ipv4|ipv6 unicast json` (also `show bgp neighbor
// ADDR routes json`), or `… json detail`, which adds communities; or `show bgp
// neighbor ADDR received-routes|advertised-routes json` (frr_adj.go).
type frrTable struct {
	Routes   map[string][]frrPath `json:"routes"`
	RouterID string               `json:"routerId"`
	frrAdjTable
}

type frrPath struct {
	Network  string `json:"network"`
	PeerID   string `json:"peerId"`
	Path     string `json:"path"`
	Stale    bool   `json:"stale"`
	PathID   uint32 `json:"remotePathId"`
	NextHops []struct {
		IP    string `json:"ip"`
		Scope string `json:"scope"`
	} `json:"nexthops"`
	Community      *frrCommunities `json:"community"`
	LargeCommunity *frrCommunities `json:"largeCommunity"`
	// LocPrf is LOCAL_PREF, printed when the path carries it.
	LocPrf *uint32 `json:"locPrf"`
	// The detail form nests the AS path and the peer, and opens each
	// prefix's list with an element of its own (prefix, version).
	ASPath *struct {
		Segments []struct {
			List []uint32 `json:"list"`
		} `json:"segments"`
	} `json:"aspath"`
	Peer *struct {
		PeerID   string `json:"peerId"`
		RouterID string `json:"routerId"`
	} `json:"peer"`
}

// header reports whether p is the detail form's element opening a prefix.
func (p frrPath) header() bool {
	return p.Network == "" && p.PeerID == "" && p.ASPath == nil && p.Peer == nil && len(p.NextHops) == 0
}

// frrCommunities are FRR's community and largeCommunity objects.
type frrCommunities struct {
	List []string `json:"list"`
}

// frrWellKnown are the names FRR's JSON gives well-known communities.
var frrWellKnown = map[string]string{
	"internet": "0:0", "gracefulShutdown": "65535:0", "acceptown": "65535:1", "routeFilterTranslatedV4": "65535:2",
	"routeFilterV4": "65535:3", "routeFilterTranslatedV6": "65535:4", "routeFilterV6": "65535:5",
	"llgrStale": "65535:6", "noLlgr": "65535:7", "acceptownnexthop": "65535:8", "blackhole": "65535:666",
	"noExport": "65535:65281", "noAdvertise": "65535:65282", "localAs": "65535:65283", "noPeer": "65535:65284",
}

func readFRR(name string, r *bufio.Reader, o options) ([]validator.Route, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var t frrTable
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, jsonError(name, data, err, "FRR's show bgp ipv4|ipv6 unicast json: {\"routes\": {prefix: [paths]}}")
	}
	if t.adj() {
		return t.adjRoutes(name, o)
	}
	if t.Routes == nil && !strings.Contains(string(data), `"routes"`) {
		return nil, fmt.Errorf("%s: JSON path $.routes: missing (expected FRR's show bgp ipv4|ipv6 unicast json)", name)
	}
	keys := make([]string, 0, len(t.Routes))
	for k := range t.Routes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var routes []validator.Route
	for _, key := range keys {
		for i, p := range t.Routes[key] {
			if p.header() {
				continue
			}
			rt, err := p.route(key, t.RouterID)
			if err != nil {
				return nil, fmt.Errorf("%s: JSON path $.routes[%q][%d]: %w", name, key, i, err)
			}
			routes = append(routes, rt)
		}
	}
	return routes, nil
}

// frrUnspec is the peerId FRR's plain form prints for the router's own
// paths (network statements, redistributed connected or static routes).
const frrUnspec = "(unspec)"

// route reads one path; routerID is the table's, the router's own (its
// paths have no peer: FRR prints "(unspec)", or 0.0.0.0 in the detail form).
func (p frrPath) route(key, routerID string) (validator.Route, error) {
	pf, err := netip.ParsePrefix(key)
	if err != nil {
		return validator.Route{}, fmt.Errorf("%q is not a prefix", key)
	}
	rt := validator.Route{Prefix: pf.Masked(), Attributes: &validator.Attributes{}, Stale: p.Stale, PathID: p.PathID}
	if p.Peer == nil && p.ASPath == nil {
		rt.Unseen = noCommunity // the plain form prints no communities
	}
	if p.PeerID == frrUnspec {
		if rt.RouterID, err = parseAddr(routerID); err != nil {
			return rt, fmt.Errorf("routerId: %w", err)
		}
	} else if rt.Peer, err = parseAddr(p.PeerID); err != nil {
		return rt, fmt.Errorf("peerId: %w", err)
	}
	for j, nh := range p.NextHops {
		if nh.Scope == "link-local" && rt.NextHop.IsValid() {
			continue
		}
		a, err := parseAddr(nh.IP)
		if err != nil {
			return rt, fmt.Errorf("nexthops[%d].ip: %w", j, err)
		}
		if !rt.NextHop.IsValid() || rt.NextHop.IsLinkLocalUnicast() {
			rt.NextHop = a
		}
	}
	for _, f := range strings.Fields(p.Path) {
		if as, err := strconv.ParseUint(strings.Trim(f, "{}()[],"), 10, 32); err == nil {
			rt.ASPath = append(rt.ASPath, uint32(as))
		}
	}
	if p.Peer != nil {
		if rt.Peer, err = parseAddr(p.Peer.PeerID); err != nil {
			return rt, fmt.Errorf("peer.peerId: %w", err)
		}
		if rt.RouterID, err = parseAddr(p.Peer.RouterID); err != nil {
			return rt, fmt.Errorf("peer.routerId: %w", err)
		}
	}
	if rt.Peer.IsUnspecified() || p.PeerID == frrUnspec {
		// The router's own path: no peer, and its next hop 0.0.0.0 (or ::) is itself.
		rt.Peer = netip.Addr{}
		if rt.NextHop.IsUnspecified() {
			rt.NextHop = netip.Addr{}
		}
	}
	if p.ASPath != nil {
		for _, seg := range p.ASPath.Segments {
			rt.ASPath = append(rt.ASPath, seg.List...)
		}
	}
	if p.Community != nil {
		for _, c := range p.Community.List {
			rt.Communities = append(rt.Communities, cmp.Or(frrWellKnown[c], c))
		}
	}
	if p.LargeCommunity != nil {
		rt.LargeCommunities = p.LargeCommunity.List
	}
	if p.LocPrf != nil {
		rt.LocalPref, rt.HasLocalPref = *p.LocPrf, true
	}
	return rt, nil
}
