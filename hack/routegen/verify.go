package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
)

// gobgpPath is the subset of a path in `gobgp ... rib -j` / `adj-in -j`
// output that routegen checks. Both print {"<prefix>": [path, ...], ...}.
type gobgpPath struct {
	Attrs []struct {
		Type    int    `json:"type"`
		Nexthop string `json:"nexthop"`
	} `json:"attrs"`
	NeighborIP string `json:"neighbor-ip"` // gobgp v3
	// PeerAddress is gobgp v4's name for it; a path the collector itself
	// originated has neither.
	PeerAddress string `json:"peer-address"`
}

func parseGoBGPRib(b []byte) (pairSet, error) {
	var m map[string][]gobgpPath
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	ps := pairSet{}
	for prefix, paths := range m {
		for _, p := range paths {
			nh := ""
			for _, a := range p.Attrs {
				if a.Type == 3 || a.Type == 14 { // NEXT_HOP, MP_REACH_NLRI
					nh = a.Nexthop
				}
			}
			peer := p.NeighborIP + p.PeerAddress
			if local(peer) {
				ps.addLocal(netip.MustParsePrefix(prefix))
				continue
			}
			if err := ps.add(prefix, nh, peer); err != nil {
				return nil, err
			}
		}
	}
	return ps, nil
}

// parseGoBGPAdjIn: `neighbor X adj-in -j` has the same shape as `global rib -j`.
func parseGoBGPAdjIn(b []byte) (pairSet, error) { return parseGoBGPRib(b) }

// MRT (RFC 6396) constants used here.
const (
	mrtTableDumpV2  = 13
	mrtPeerIndex    = 1
	mrtRIBv4Unicast = 2
	mrtRIBv6Unicast = 4
	mrtRIBv4AddPath = 8  // RFC 8050
	mrtRIBv6AddPath = 10 // RFC 8050
)

// parseMRT reads a file of TABLE_DUMP_V2 records and returns its
// (prefix, next hop, peer) triples and the number of PEER_INDEX_TABLE records
// (one per table dump). It is deliberately independent of GoBGP's MRT code:
// FRR 8.4 writes MP_REACH_NLRI in RIB entries in full BGP UPDATE form
// (AFI, SAFI, next hop, reserved, NLRI) instead of RFC 6396 §4.3.4's
// abbreviated form (next hop length and next hop only); both are accepted.
func parseMRT(b []byte) (pairSet, int, error) {
	ps := pairSet{}
	dumps := 0
	var peers []netip.Addr
	for len(b) > 0 {
		if len(b) < 12 {
			return nil, 0, fmt.Errorf("truncated MRT header")
		}
		typ := binary.BigEndian.Uint16(b[4:6])
		sub := binary.BigEndian.Uint16(b[6:8])
		n := int(binary.BigEndian.Uint32(b[8:12]))
		if len(b) < 12+n {
			return nil, 0, fmt.Errorf("truncated MRT record")
		}
		body := b[12 : 12+n]
		b = b[12+n:]
		if typ != mrtTableDumpV2 {
			return nil, 0, fmt.Errorf("unexpected MRT type %d", typ)
		}
		var err error
		switch sub {
		case mrtPeerIndex:
			dumps++
			if peers, err = mrtPeers(body, false); err != nil {
				peers, err = mrtPeers(body, true) // gobgpd 4.8.0's local peer
			}
		case mrtRIBv4Unicast, mrtRIBv6Unicast, mrtRIBv4AddPath, mrtRIBv6AddPath:
			rib := pairSet{}
			err = mrtRIB(body, sub, peers, rib)
			if err != nil && (sub == mrtRIBv6Unicast || sub == mrtRIBv6AddPath) && len(body) > 7 &&
				string(body[4:7]) == "\x00\x02\x01" {
				// gobgpd 4.8.0 writes AFI 2, SAFI 1 before the prefix.
				rib = pairSet{}
				err = mrtRIB(append(body[:4:4], body[7:]...), sub, peers, rib)
			}
			maps.Copy(ps, rib)
		default:
			err = fmt.Errorf("unexpected TABLE_DUMP_V2 subtype %d", sub)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	return ps, dumps, nil
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) next(n int) []byte {
	if r.err != nil {
		return make([]byte, n)
	}
	if len(r.b) < n {
		r.err = fmt.Errorf("truncated MRT body")
		return make([]byte, n)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
func (r *reader) u8() int  { return int(r.next(1)[0]) }
func (r *reader) u16() int { return int(binary.BigEndian.Uint16(r.next(2))) }

// mrtPeers reads a PEER_INDEX_TABLE; with gobgpLocal, an IPv4 peer with
// BGP ID 0.0.0.0 has no peer address (gobgpd 4.8.0's dummy peer of its own
// routes, 9 bytes instead of RFC 6396's 13).
func mrtPeers(body []byte, gobgpLocal bool) ([]netip.Addr, error) {
	r := &reader{b: body}
	r.next(4)       // collector BGP ID
	r.next(r.u16()) // view name
	n := r.u16()
	var peers []netip.Addr
	for i := 0; i < n; i++ {
		t := r.u8()
		id := r.next(4) // peer BGP ID
		var a netip.Addr
		if gobgpLocal && t&1 == 0 && string(id) == "\x00\x00\x00\x00" {
			a = netip.IPv4Unspecified()
		} else if t&1 != 0 {
			a = netip.AddrFrom16([16]byte(r.next(16)))
		} else {
			a = netip.AddrFrom4([4]byte(r.next(4)))
		}
		if t&2 != 0 {
			r.next(4)
		} else {
			r.next(2)
		}
		peers = append(peers, a)
	}
	return peers, r.err
}

func mrtRIB(body []byte, sub uint16, peers []netip.Addr, ps pairSet) error {
	r := &reader{b: body}
	r.next(4) // sequence number
	bits := r.u8()
	v6 := sub == mrtRIBv6Unicast || sub == mrtRIBv6AddPath
	var raw [16]byte
	copy(raw[:], r.next((bits+7)/8))
	var pfx netip.Prefix
	if v6 {
		pfx = netip.PrefixFrom(netip.AddrFrom16(raw), bits)
	} else {
		pfx = netip.PrefixFrom(netip.AddrFrom4([4]byte(raw[:4])), bits)
	}
	n := r.u16()
	for i := 0; i < n; i++ {
		idx := r.u16()
		r.next(4) // originated time
		if sub == mrtRIBv4AddPath || sub == mrtRIBv6AddPath {
			r.next(4) // path identifier
		}
		attrs := &reader{b: r.next(r.u16())}
		nh := netip.Addr{}
		for attrs.err == nil && len(attrs.b) > 0 {
			flags := attrs.u8()
			typ := attrs.u8()
			var l int
			if flags&0x10 != 0 {
				l = attrs.u16()
			} else {
				l = attrs.u8()
			}
			v := attrs.next(l)
			switch {
			case typ == 3 && l == 4:
				nh = netip.AddrFrom4([4]byte(v))
			case typ == 14 && l > 0:
				nhv := v[1:]                   // RFC 6396 abbreviated form
				if int(v[0]) != l-1 && l > 4 { // full MP_REACH_NLRI (FRR)
					nhv = v[4 : 4+min(int(v[3]), l-4)]
				}
				switch len(nhv) {
				case 4:
					nh = netip.AddrFrom4([4]byte(nhv))
				case 16, 32: // global [+ link-local]
					nh = netip.AddrFrom16([16]byte(nhv[:16]))
				default:
					return fmt.Errorf("%s: MP_REACH_NLRI next hop of %d bytes", pfx, len(nhv))
				}
			}
		}
		if attrs.err != nil {
			return fmt.Errorf("%s: %w", pfx, attrs.err)
		}
		if idx >= len(peers) {
			return fmt.Errorf("%s: peer index %d out of range", pfx, idx)
		}
		if peers[idx].IsUnspecified() { // the collector's own route (peer 0: a dummy)
			ps.addLocal(pfx)
			continue
		}
		if !nh.IsValid() {
			return fmt.Errorf("%s: RIB entry without next hop", pfx)
		}
		ps[pair{pfx.Masked(), nh.Unmap(), peers[idx].Unmap()}] = true
	}
	return r.err
}

// parseMRTFile parses gobgpd's and FRR's MRT files, which hold one table
// dump (one PEER_INDEX_TABLE, then IPv4 and IPv6 RIB records).
func parseMRTFile(b []byte) (pairSet, error) { return parseMRTDumps(b, 1) }

// parseBIRDMRT parses BIRD's MRT file: one table dump per table (master4,
// then master6), each with its own PEER_INDEX_TABLE.
func parseBIRDMRT(b []byte) (pairSet, error) { return parseMRTDumps(b, 2) }

func parseMRTDumps(b []byte, want int) (pairSet, error) {
	ps, dumps, err := parseMRT(b)
	if err == nil && dumps != want {
		err = fmt.Errorf("%d table dumps in one file, want %d", dumps, want)
	}
	return ps, err
}

// verifyDir checks that every dump present in dir holds exactly the spec's
// (prefix, next hop) pairs of its address family, each from the peer (the
// speaker's localAddress) that announced it.
func verifyDir(spec *Spec, dir string) error {
	first := spec.Speakers[0].LocalAddress
	checks := []struct {
		file     string
		family   int
		filter   func(Speaker) bool
		parse    func([]byte) (pairSet, error)
		required bool
	}{
		{"routes.gobgp.json", 4, nil, parseGoBGPRib, true},
		{"routes.gobgp-v6.json", 6, nil, parseGoBGPRib, spec.hasV6()},
		{"routes.gobgp-adjin.json", 4, func(s Speaker) bool { return s.LocalAddress == first }, parseGoBGPAdjIn, true},
		{"routes.frr.json", 4, nil, parseFRR, true},
		{"routes.frr-v6.json", 6, nil, parseFRR, spec.hasV6()},
		{"routes.bird.txt", 0, nil, parseBIRD, true},
		{"routes.mrt", 0, nil, parseMRTFile, false}, // not with -no-gobgp-mrt
		{"routes.bird.mrt", 0, nil, parseBIRDMRT, false},
		{"routes.frr.mrt", 0, nil, parseMRTFile, false},
	}
	var errs, ok []string
	for _, c := range checks {
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if os.IsNotExist(err) && !c.required {
			continue
		}
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		got, err := c.parse(b)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", c.file, err))
			continue
		}
		if d := spec.expected(c.family, c.filter).diff(got); d != "" {
			errs = append(errs, fmt.Sprintf("%s: %s", c.file, d))
			continue
		}
		ok = append(ok, c.file)
	}
	if len(errs) > 0 {
		return fmt.Errorf("verification failed:\n  %s", strings.Join(errs, "\n  "))
	}
	fmt.Fprintf(os.Stderr, "routegen: %s: OK: (prefix, next hop, peer) sets equal the spec's in %s\n", dir, strings.Join(ok, ", "))
	return nil
}
