package dump

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sort"
	"strings"

	"github.com/routewarden/routewarden/bgp/wire"
	"github.com/routewarden/routewarden/validator"
)

// gobgpPath is one path in `gobgp global rib -j` / `gobgp neighbor ADDR adj-in -j`.
type gobgpPath struct {
	NLRI struct {
		Prefix string `json:"prefix"`
	} `json:"nlri"`
	Attrs      []json.RawMessage `json:"attrs"`
	Stale      bool              `json:"stale"`
	SourceID   string            `json:"source-id"`
	NeighborIP string            `json:"neighbor-ip"`
	ID         uint32            `json:"id"`
	// GoBGP v4's gobgp names the peer's router ID and address so (and
	// prints no path ID).
	PeerID      string `json:"peer-id"`
	PeerAddress string `json:"peer-address"`
}

type gobgpAttr struct {
	Type    int    `json:"type"`
	NextHop string `json:"nexthop"`
	ASPaths []struct {
		ASNs []uint32 `json:"asns"`
	} `json:"as_paths"`
	Communities []uint32        `json:"communities"`
	Value       json.RawMessage `json:"value"`
}

func readGoBGP(name string, r *bufio.Reader) ([]validator.Route, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var rib map[string][]gobgpPath
	if err := json.Unmarshal(data, &rib); err != nil {
		return nil, jsonError(name, data, err, "a GoBGP RIB: an object of prefix → [paths] (gobgp global rib -j)")
	}
	keys := make([]string, 0, len(rib))
	for k := range rib {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var routes []validator.Route
	for _, key := range keys {
		for i, p := range rib[key] {
			at := fmt.Sprintf("%s: $[%q][%d]", name, key, i)
			rt, err := p.route(key)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", at, err)
			}
			routes = append(routes, rt)
		}
	}
	return routes, nil
}

func (p gobgpPath) route(key string) (validator.Route, error) {
	prefix := p.NLRI.Prefix
	if prefix == "" {
		prefix = key
	}
	pf, err := netip.ParsePrefix(prefix)
	if err != nil {
		return validator.Route{}, fmt.Errorf("nlri.prefix %q is not a prefix", prefix)
	}
	rt := validator.Route{Prefix: pf.Masked(), Attributes: &validator.Attributes{}, Stale: p.Stale, PathID: p.ID}
	rt.Peer, _ = parseAddr(cmp.Or(p.NeighborIP, p.PeerAddress))
	rt.RouterID, _ = parseAddr(cmp.Or(p.SourceID, p.PeerID))
	for j, raw := range p.Attrs {
		var a gobgpAttr
		if err := json.Unmarshal(raw, &a); err != nil {
			return rt, fmt.Errorf("attrs[%d]: %v", j, err)
		}
		switch a.Type {
		case 2: // AS_PATH
			for _, seg := range a.ASPaths {
				rt.ASPath = append(rt.ASPath, seg.ASNs...)
			}
		case 3, 14: // NEXT_HOP, MP_REACH_NLRI
			if rt.NextHop, err = parseAddr(a.NextHop); err != nil {
				return rt, fmt.Errorf("attrs[%d].nexthop: %v", j, err)
			}
		case 5: // LOCAL_PREF
			if err := json.Unmarshal(a.Value, &rt.LocalPref); err != nil {
				return rt, fmt.Errorf("attrs[%d].value (LOCAL_PREF): %v", j, err)
			}
			rt.HasLocalPref = true
		case 8: // COMMUNITIES
			for _, c := range a.Communities {
				rt.Communities = append(rt.Communities, wire.Community(c))
			}
		case 32: // LARGE_COMMUNITY
			var large []struct{ ASN, LocalData1, LocalData2 uint32 }
			if err := json.Unmarshal(a.Value, &large); err != nil {
				return rt, fmt.Errorf("attrs[%d].value (LARGE_COMMUNITY): %v", j, err)
			}
			for _, c := range large {
				rt.LargeCommunities = append(rt.LargeCommunities, wire.LargeCommunity(c.ASN, c.LocalData1, c.LocalData2))
			}
		}
	}
	return rt, nil
}

func parseAddr(s string) (netip.Addr, error) {
	if s == "" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%q is not an IP address", s)
	}
	return a.Unmap(), nil
}

// jsonError turns encoding/json's errors into "file:line: what was expected".
func jsonError(name string, data []byte, err error, expected string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && strings.Contains(se.Error(), "unexpected end of JSON input"):
		return fmt.Errorf("%s:%d: the JSON ends in the middle of a value (after %d bytes, on its last line): the "+
			"dump was cut short; take it again (reading %s)", name, lineAt(data, se.Offset), len(data), expected)
	case errors.As(err, &se):
		return fmt.Errorf("%s:%d: invalid JSON: %v", name, lineAt(data, se.Offset), se)
	case errors.As(err, &te):
		return fmt.Errorf("%s:%d: JSON path %s: found %s, expected %s (reading %s)", name, lineAt(data, te.Offset),
			jsonPath(te.Field), te.Value, te.Type, expected)
	}
	return fmt.Errorf("%s: %v (expected %s)", name, err, expected)
}

func jsonPath(field string) string {
	if field == "" {
		return "$"
	}
	return "$." + field
}
