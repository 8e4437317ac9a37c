package dump

import (
	"bufio"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// A BIRD 2 route line: "10.244.1.0/24  unicast [node1 12:00:00.000 from 127.0.1.11] * (100) [AS65010i]";
// further paths of the same prefix start with blanks instead of the prefix.
var (
	birdRouteLine = regexp.MustCompile(`^([0-9a-fA-F:.]+/\d+)\s+(\w+)\s+\[`)
	birdPathLine  = regexp.MustCompile(`^\s+(unicast|unreachable|blackhole|prohibit|multipath)\s+\[`)
	birdBracket   = regexp.MustCompile(`\[(\S+)\s+[^\]]*?(?:\s+from\s+(\S+))?\]`)
	birdCommunity = regexp.MustCompile(`\((\d+),\s*(\d+)\)`)
	birdLarge     = regexp.MustCompile(`\((\d+),\s*(\d+),\s*(\d+)\)`)
)

// birdPlainUnseen is what `birdc show route` (without all) does not show:
// no attribute, and its "via" is the forwarding gateway (or only "dev lo"
// for a next hop resolved recursively), not BGP's next hop.
const birdPlainUnseen = noCommunity | validator.UnseenLocalPref | validator.UnseenASPath | validator.UnseenNextHop

// readBIRD reads `birdc show route all` (with or without "via … on IFACE" lines).
func readBIRD(name string, r *bufio.Reader) ([]validator.Route, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	var (
		routes   []validator.Route
		prefix   netip.Prefix
		cur      *validator.Route
		viaNH    netip.Addr
		bgpAttrs bool // the path has BGP.* lines: `show route all`
	)
	flush := func() {
		if cur != nil {
			if !cur.NextHop.IsValid() {
				cur.NextHop = viaNH
			}
			if !bgpAttrs {
				// `show route` without all: no attributes; the next hop, if any, from "via".
				cur.Unseen = birdPlainUnseen
			}
			routes = append(routes, *cur)
		}
		cur, viaNH, bgpAttrs = nil, netip.Addr{}, false
	}
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		trimmed := strings.TrimSpace(text)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "Table ") || strings.HasPrefix(trimmed, "BIRD ") ||
			strings.HasPrefix(trimmed, "Access restricted"):
			continue
		case birdRouteLine.MatchString(text):
			flush()
			m := birdRouteLine.FindStringSubmatch(text)
			p, err := netip.ParsePrefix(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %q is not a prefix", name, line, m[1])
			}
			prefix = p.Masked()
			cur = newBIRDPath(prefix, text)
		case birdPathLine.MatchString(text):
			flush()
			if !prefix.IsValid() {
				return nil, fmt.Errorf("%s:%d: a path line before any prefix line", name, line)
			}
			cur = newBIRDPath(prefix, text)
		case cur != nil && (strings.HasPrefix(text, "\t") || strings.HasPrefix(text, " ")):
			bgpAttrs = bgpAttrs || strings.HasPrefix(trimmed, "BGP.")
			if err := birdAttribute(cur, &viaNH, trimmed); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
		default:
			return nil, fmt.Errorf("%s:%d: expected a route line like \"10.244.1.0/24 unicast [node1 …]\" or an "+
				"indented attribute (reading birdc show route all), found %q", name, line, truncate(text, 60))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	flush()
	return routes, nil
}

func newBIRDPath(prefix netip.Prefix, text string) *validator.Route {
	rt := &validator.Route{Prefix: prefix, Attributes: &validator.Attributes{}}
	if m := birdBracket.FindStringSubmatch(text); m != nil && m[2] != "" {
		rt.Peer, _ = parseAddr(m[2])
	}
	return rt
}

func birdAttribute(rt *validator.Route, viaNH *netip.Addr, attr string) error {
	key, value, _ := strings.Cut(attr, ":")
	switch {
	case strings.HasPrefix(attr, "via "):
		fields := strings.Fields(attr)
		if a, err := parseAddr(fields[1]); err == nil && !viaNH.IsValid() {
			*viaNH = a
		}
	case key == "BGP.next_hop":
		fields := strings.Fields(value)
		if len(fields) == 0 {
			return fmt.Errorf("BGP.next_hop has no address")
		}
		a, err := parseAddr(fields[0])
		if err != nil {
			return fmt.Errorf("BGP.next_hop: %w", err)
		}
		rt.NextHop = a
	case key == "BGP.as_path":
		for _, f := range strings.Fields(value) {
			if as, err := strconv.ParseUint(strings.Trim(f, "{}"), 10, 32); err == nil {
				rt.ASPath = append(rt.ASPath, uint32(as))
			}
		}
	case key == "BGP.community":
		for _, m := range birdCommunity.FindAllStringSubmatch(value, -1) {
			rt.Communities = append(rt.Communities, m[1]+":"+m[2])
		}
	case key == "BGP.large_community":
		for _, m := range birdLarge.FindAllStringSubmatch(value, -1) {
			rt.LargeCommunities = append(rt.LargeCommunities, m[1]+":"+m[2]+":"+m[3])
		}
	case key == "BGP.local_pref":
		v, err := strconv.ParseUint(strings.TrimSpace(value), 10, 32)
		if err != nil {
			return fmt.Errorf("BGP.local_pref %q is not a number", strings.TrimSpace(value))
		}
		rt.LocalPref, rt.HasLocalPref = uint32(v), true
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
