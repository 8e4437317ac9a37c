package dump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Path attribute flags and types (RFC 4271 §4.3).
const (
	attrFlagOptional   = 0x80
	attrFlagTransitive = 0x40
	attrFlagExtLen     = 0x10
	attrTypeMPReach    = 14
)

// wellKnown are the well-known attributes, which must be sent transitive and
// non-optional.
var wellKnown = map[byte]bool{1: true, 2: true, 3: true, 5: true, 6: true}

var errShortRIB = errors.New("RIB record shorter than its contents")

// normalizeRIB rewrites a TABLE_DUMP_V2 RIB record so that GoBGP's strict
// decoder reads what real writers produce:
//   - BIRD 2.0 writes well-known attributes (NEXT_HOP, LOCAL_PREF) with flags 0;
//     they get the transitive flag;
//   - FRR 8.4 writes MP_REACH_NLRI in its full UPDATE form (AFI, SAFI, next hop,
//     reserved byte, NLRI) instead of RFC 6396 §4.3.4's next-hop-only form; it is
//     cut down to the next hop;
//   - gobgpd 4.8.0 writes RIB_IPV6_UNICAST(_ADDPATH) records with RIB_GENERIC's
//     AFI (2) and SAFI (1) between the sequence number and the prefix
//     (RFC 6396 §4.3.2 has none); they are dropped when the record reads
//     exactly that way and not as RFC 6396 says.
//
// It returns the record and how many attributes or headers it changed.
func normalizeRIB(body []byte, addPath, v6 bool) ([]byte, int, error) {
	if len(body) < 5 {
		return nil, 0, errShortRIB
	}
	if v6 && hasGoBGPFamily(body, addPath) {
		out, fixed, err := normalizeRIB(append(body[:4:4], body[7:]...), addPath, false)
		return out, fixed + 1, err
	}
	plen := int(body[4])
	head := 5 + (plen+7)/8
	if len(body) < head+2 {
		return nil, 0, errShortRIB
	}
	count := int(binary.BigEndian.Uint16(body[head:]))
	out := make([]byte, 0, len(body))
	out = append(out, body[:head+2]...)
	pos, fixed := head+2, 0
	entryHead := 6
	if addPath {
		entryHead = 10
	}
	for e := 0; e < count; e++ {
		if len(body) < pos+entryHead+2 {
			return nil, 0, errShortRIB
		}
		out = append(out, body[pos:pos+entryHead]...)
		alen := int(binary.BigEndian.Uint16(body[pos+entryHead:]))
		start := pos + entryHead + 2
		if len(body) < start+alen {
			return nil, 0, fmt.Errorf("RIB entry %d: attributes run past the record", e)
		}
		attrs, n, err := normalizeAttrs(body[start : start+alen])
		if err != nil {
			return nil, 0, fmt.Errorf("RIB entry %d: %w", e, err)
		}
		fixed += n
		out = binary.BigEndian.AppendUint16(out, uint16(len(attrs)))
		out = append(out, attrs...)
		pos = start + alen
	}
	return out, fixed, nil
}

// gobgpIPv6Family is AFI 2 (IPv6), SAFI 1 (unicast).
var gobgpIPv6Family = []byte{0, 2, 1}

// hasGoBGPFamily reports whether an IPv6 RIB record carries gobgpd's
// AFI/SAFI after its sequence number: it does not read as RFC 6396 says
// (it would be ::/0 with 513 entries) and reads exactly without them.
func hasGoBGPFamily(body []byte, addPath bool) bool {
	if len(body) < 7 || !bytes.Equal(body[4:7], gobgpIPv6Family) {
		return false
	}
	return !ribFits(body, addPath) && ribFits(append(body[:4:4], body[7:]...), addPath)
}

// ribFits reports whether a RIB record's entries end exactly where it ends.
func ribFits(body []byte, addPath bool) bool {
	if len(body) < 5 {
		return false
	}
	pos := 5 + (int(body[4])+7)/8
	if len(body) < pos+2 {
		return false
	}
	count := int(binary.BigEndian.Uint16(body[pos:]))
	pos += 2
	entryHead := 6
	if addPath {
		entryHead = 10
	}
	for range count {
		if len(body) < pos+entryHead+2 {
			return false
		}
		pos += entryHead + 2 + int(binary.BigEndian.Uint16(body[pos+entryHead:]))
	}
	return pos == len(body)
}

func normalizeAttrs(b []byte) ([]byte, int, error) {
	out := make([]byte, 0, len(b))
	fixed := 0
	for len(b) > 0 {
		if len(b) < 3 {
			return nil, 0, errors.New("truncated path attribute")
		}
		flags, typ := b[0], b[1]
		hdr, vlen := 3, int(b[2])
		if flags&attrFlagExtLen != 0 {
			if len(b) < 4 {
				return nil, 0, errors.New("truncated path attribute")
			}
			hdr, vlen = 4, int(binary.BigEndian.Uint16(b[2:]))
		}
		if len(b) < hdr+vlen {
			return nil, 0, fmt.Errorf("attribute type %d: length %d runs past the entry", typ, vlen)
		}
		value := b[hdr : hdr+vlen]
		if wellKnown[typ] && flags&(attrFlagOptional|attrFlagTransitive) != attrFlagTransitive {
			flags = flags&^attrFlagOptional | attrFlagTransitive
			fixed++
		}
		if typ == attrTypeMPReach && vlen > 0 && vlen != 1+int(value[0]) && vlen >= 4 && vlen >= 4+int(value[3]) {
			// Full form: AFI(2) SAFI(1) NHLEN(1) NH …; keep NHLEN and NH.
			value = value[3 : 4+int(value[3])]
			fixed++
		}
		if len(value) > 255 {
			out = append(out, flags|attrFlagExtLen, typ)
			out = binary.BigEndian.AppendUint16(out, uint16(len(value)))
		} else {
			out = append(out, flags&^attrFlagExtLen, typ, byte(len(value)))
		}
		out = append(out, value...)
		b = b[hdr+vlen:]
	}
	return out, fixed, nil
}
