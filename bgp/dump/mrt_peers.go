package dump

import (
	"encoding/binary"
)

// normalizePeerIndex rewrites a PEER_INDEX_TABLE so GoBGP's decoder reads
// what gobgpd 4.8.0 writes: the dummy peer of its own routes (BGP ID
// 0.0.0.0, peer type IPv4) has no peer address at all (9 bytes instead of
// RFC 6396 §4.3.1's 13). Such a peer gets the address 0.0.0.0, but only
// when the table does not read as RFC 6396 says and reads exactly so.
// It returns the table and how many peers it changed.
func normalizePeerIndex(body []byte) ([]byte, int) {
	if len(body) < 6 {
		return body, 0
	}
	head := 6 + int(binary.BigEndian.Uint16(body[4:]))
	if len(body) < head+2 {
		return body, 0
	}
	count := int(binary.BigEndian.Uint16(body[head:]))
	peers := body[head+2:]
	if count > maxLenientPeers || peersFit(peers, count, false) || !peersFit(peers, count, true) {
		return body, 0
	}
	out := append([]byte(nil), body[:head+2]...)
	fixed := 0
	for range count {
		n, short := peerLen(peers), false
		if fixed == 0 && isGoBGPDummy(peers) && (len(peers) < n || !peersFit(peers[n:], count-1, true)) {
			n, short = peerLen(peers)-4, true
		}
		if short {
			out = append(out, peers[:5]...)
			out = append(out, 0, 0, 0, 0)
			out = append(out, peers[5:n]...)
			fixed++
		} else {
			out = append(out, peers[:n]...)
		}
		peers, count = peers[n:], count-1
	}
	return out, fixed
}

// maxLenientPeers bounds the search for gobgpd's short dummy peer, which
// costs count² steps.
const maxLenientPeers = 1024

// peerLen is the length of a peer entry as RFC 6396 §4.3.1 lays it out.
func peerLen(b []byte) int {
	n := 1 + 4 + 4 + 2
	if b[0]&1 != 0 {
		n += 12
	}
	if b[0]&2 != 0 {
		n += 2
	}
	return n
}

// isGoBGPDummy: an IPv4 peer entry with BGP ID 0.0.0.0.
func isGoBGPDummy(b []byte) bool {
	return len(b) >= 5 && b[0]&1 == 0 && binary.BigEndian.Uint32(b[1:5]) == 0
}

// peersFit reports whether count peer entries end exactly where b ends;
// with lenient, one gobgpd dummy peer may lack its address.
func peersFit(b []byte, count int, lenient bool) bool {
	if count == 0 {
		return len(b) == 0
	}
	if len(b) < 1 {
		return false
	}
	if n := peerLen(b); len(b) >= n && peersFit(b[n:], count-1, lenient) {
		return true
	}
	if n := peerLen(b) - 4; lenient && isGoBGPDummy(b) && len(b) >= n {
		return peersFit(b[n:], count-1, false)
	}
	return false
}
