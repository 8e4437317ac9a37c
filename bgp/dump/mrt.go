package dump

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/packet/mrt"

	"github.com/routewarden/routewarden/bgp/wire"
	"github.com/routewarden/routewarden/validator"
)

const mrtHeaderLen = 12

// isMRTHeader reports whether head starts with a plausible MRT common header
// (RFC 6396 §2) of a type routers write.
func isMRTHeader(head []byte) bool {
	if len(head) < mrtHeaderLen {
		return false
	}
	typ := binary.BigEndian.Uint16(head[4:6])
	length := binary.BigEndian.Uint32(head[8:12])
	switch mrt.MRTType(typ) {
	case mrt.TABLE_DUMP, mrt.TABLE_DUMPv2, mrt.BGP4MP, mrt.BGP4MP_ET:
		return length < 1<<24
	}
	return false
}

// readMRT reads TABLE_DUMP_V2 records: the PEER_INDEX_TABLE names the peers,
// RIB_IPV4/IPV6_UNICAST (and their ADD-PATH variants) hold the paths.
func readMRT(name string, r *bufio.Reader) ([]validator.Route, error) {
	var (
		routes  []validator.Route
		peers   []*mrt.Peer
		offset  int64
		updates int
	)
	hdrBuf := make([]byte, mrtHeaderLen)
	for record := 1; ; record++ {
		if _, err := io.ReadFull(r, hdrBuf); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: MRT record %d at byte %d: truncated header (%v)", name, record, offset, err)
		}
		h, err := mrt.ParseHeader(hdrBuf)
		if err != nil {
			return nil, fmt.Errorf("%s: MRT record %d at byte %d: %v", name, record, offset, err)
		}
		if h.Len > 1<<24 {
			return nil, fmt.Errorf("%s: MRT record %d at byte %d: length %d is implausible (not an MRT file?)",
				name, record, offset, h.Len)
		}
		body := make([]byte, h.Len)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, fmt.Errorf("%s: MRT record %d at byte %d: body shorter than its length %d", name, record,
				offset, h.Len)
		}
		at := offset
		offset += mrtHeaderLen + int64(h.Len)
		if h.Type != mrt.TABLE_DUMPv2 {
			if h.Type == mrt.BGP4MP || h.Type == mrt.BGP4MP_ET {
				updates++
			}
			continue
		}
		if !tableDumpSubtype(h.SubType) {
			continue
		}
		if st := mrt.MRTSubTypeTableDumpv2(h.SubType); st == mrt.PEER_INDEX_TABLE {
			body, _ = normalizePeerIndex(body)
			h.Len = uint32(len(body))
		} else {
			addPath := st == mrt.RIB_IPV4_UNICAST_ADDPATH || st == mrt.RIB_IPV6_UNICAST_ADDPATH
			v6 := st == mrt.RIB_IPV6_UNICAST || st == mrt.RIB_IPV6_UNICAST_ADDPATH
			if body, _, err = normalizeRIB(body, addPath, v6); err != nil {
				return nil, fmt.Errorf("%s: MRT record %d at byte %d: %v", name, record, at, err)
			}
			h.Len = uint32(len(body))
		}
		msg, err := mrt.ParseBody(body, h)
		if err != nil {
			return nil, fmt.Errorf("%s: MRT record %d at byte %d (TABLE_DUMP_V2 subtype %d): %v", name, record, at,
				h.SubType, err)
		}
		switch b := msg.Body.(type) {
		case *mrt.PeerIndexTable:
			peers = b.Peers
		case *mrt.Rib:
			rs, err := ribRoutes(b, peers)
			if err != nil {
				return nil, fmt.Errorf("%s: MRT record %d at byte %d: %w", name, record, at, err)
			}
			routes = append(routes, rs...)
		}
	}
	if len(routes) == 0 && updates > 0 {
		return nil, fmt.Errorf("%s: the MRT file holds %d BGP4MP records (an update stream), not a TABLE_DUMP_V2 "+
			"RIB dump; dump the RIB instead (gobgpd mrt dump-type table, BIRD protocol mrt, FRR dump bgp "+
			"routes-mrt)", name, updates)
	}
	return routes, nil
}

func tableDumpSubtype(st uint16) bool {
	switch mrt.MRTSubTypeTableDumpv2(st) {
	case mrt.PEER_INDEX_TABLE, mrt.RIB_IPV4_UNICAST, mrt.RIB_IPV6_UNICAST, mrt.RIB_IPV4_UNICAST_ADDPATH,
		mrt.RIB_IPV6_UNICAST_ADDPATH:
		return true
	}
	return false
}

func ribRoutes(rib *mrt.Rib, peers []*mrt.Peer) ([]validator.Route, error) {
	pf, err := netip.ParsePrefix(rib.Prefix.String())
	if err != nil {
		return nil, fmt.Errorf("prefix %q: %v", rib.Prefix.String(), err)
	}
	out := make([]validator.Route, 0, len(rib.Entries))
	for _, e := range rib.Entries {
		if int(e.PeerIndex) >= len(peers) {
			return nil, fmt.Errorf("%s: peer index %d is not in the PEER_INDEX_TABLE (%d peers)", pf, e.PeerIndex,
				len(peers))
		}
		p := peers[e.PeerIndex]
		rt := validator.Route{Prefix: pf.Masked(), Attributes: &validator.Attributes{PeerASN: p.AS}, PathID: e.PathIdentifier}
		rt.Peer, rt.RouterID = p.IpAddress.Unmap(), p.BgpId.Unmap()
		applyAttributes(&rt, e.PathAttributes)
		out = append(out, rt)
	}
	return out, nil
}

// applyAttributes copies next hop, AS path, communities and LOCAL_PREF from GoBGP path
// attributes into a route's own attribute set.
func applyAttributes(rt *validator.Route, attrs []bgp.PathAttributeInterface) {
	for _, a := range attrs {
		switch v := a.(type) {
		case *bgp.PathAttributeNextHop:
			if v.Value.IsValid() && !rt.NextHop.IsValid() {
				rt.NextHop = v.Value.Unmap()
			}
		case *bgp.PathAttributeMpReachNLRI:
			if v.Nexthop.IsValid() {
				rt.NextHop = v.Nexthop.Unmap()
			}
		case *bgp.PathAttributeAsPath:
			for _, seg := range v.Value {
				rt.ASPath = append(rt.ASPath, seg.GetAS()...)
			}
		case *bgp.PathAttributeCommunities:
			rt.Communities = wire.AppendCommunities(rt.Communities, v)
		case *bgp.PathAttributeLargeCommunities:
			rt.LargeCommunities = wire.AppendLargeCommunities(rt.LargeCommunities, v)
		case *bgp.PathAttributeLocalPref:
			rt.LocalPref, rt.HasLocalPref = v.Value, true
		}
	}
}
