package bmp

import (
	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/bgp/wire"
)

// ADD-PATH: whether a monitored peer's UPDATEs carry path IDs comes from the
// Peer Up OPENs, but senders do not always follow them.

// decodeRM decodes a Route Monitoring UPDATE into s.upd. Senders do not always
// put the path IDs the Peer Up OPENs negotiated into BMP (FRR 8.4 never does,
// GoBGP not in its initial dump), and a message may parse both ways: with IDs
// it is taken when every ID is below 2^24 (real senders count IDs up from 1;
// a prefix misread as an ID starts with its length, so it is larger).
func (s *session) decodeRM(body []byte, ps *peerState, o wire.Options) error {
	err := s.upd.Decode(body, o)
	if !o.AddPathV4 && !o.AddPathV6 {
		if err != nil {
			// No ADD-PATH announced, IDs anyway (a Loc-RIB without Peer Up).
			// Decoded into alt: on failure, upd keeps the first reading.
			o.AddPathV4, o.AddPathV6 = true, true
			if s.alt.Decode(body, o) == nil {
				s.upd, s.alt = s.alt, s.upd
				return nil
			}
		}
		return err
	}
	if err == nil && plausibleIDs(&s.upd) {
		return nil
	}
	without := o
	without.AddPathV4, without.AddPathV6 = false, false
	if s.alt.Decode(body, without) == nil {
		s.upd, s.alt = s.alt, s.upd
		ps.idlessV4 = ps.idlessV4 || o.AddPathV4
		ps.idlessV6 = ps.idlessV6 || o.AddPathV6
		return nil
	}
	if err == nil {
		return nil
	}
	return err
}

func plausibleIDs(u *wire.Update) bool {
	for _, list := range [][]rib.NLRI{u.Withdrawn, u.Announced, u.MPWithdrawn, u.MPAnnounced} {
		for _, n := range list {
			if n.PathID >= 1<<24 {
				return false
			}
		}
	}
	return true
}

// replaceIdless adds, for every path with an ID of a family that had paths
// without, a withdrawal of the prefix's ID-0 path.
func replaceIdless(withdrawn, announced []rib.NLRI, ps *peerState) []rib.NLRI {
	n := len(withdrawn)
	for _, list := range [][]rib.NLRI{withdrawn[:n], announced} {
		for _, x := range list {
			if x.PathID != 0 && (x.Prefix.Addr().Is4() && ps.idlessV4 || x.Prefix.Addr().Is6() && ps.idlessV6) {
				withdrawn = append(withdrawn, rib.NLRI{Prefix: x.Prefix})
			}
		}
	}
	return withdrawn
}
