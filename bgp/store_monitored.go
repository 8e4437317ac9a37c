package bgp

import (
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/bgp/wire"
	"github.com/routewarden/routewarden/validator"
)

// MonitoredPeer identifies a peer seen through BMP: the monitoring router (the
// BMP session's source address) and the BMP per-peer header's peer type,
// distinguisher and address. Two ToRs monitoring sessions with the same node
// are two monitored peers.
type MonitoredPeer struct {
	Router        netip.Addr
	Type          uint8
	Distinguisher uint64
	Address       netip.Addr
}

func (p MonitoredPeer) key() peerKey {
	return peerKey{router: p.Router, typ: p.Type, dist: p.Distinguisher, addr: p.Address}
}

// BMPInfo is what BMP told about a monitored peer.
type BMPInfo struct {
	// Router is the monitoring router's address; SysName its Initiation sysName
	// (a Cilium node names itself there).
	Router  netip.Addr `json:"router"`
	SysName string     `json:"sysName,omitempty"`
	// View is the RIB whose routes are held: "pre-policy", "post-policy" (Adj-RIB-In) or "loc-rib".
	View string `json:"view,omitempty"`
}

// NLRI is one announced or withdrawn prefix with its ADD-PATH ID.
type NLRI = wire.NLRI

// MonitoredUp records a monitored peer's session (BMP Peer Up).
func (s *Store) MonitoredUp(p MonitoredPeer, info PeerInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entryKey(p.key())
	routes := e.info.Routes
	e.info = info
	e.info.State, e.info.Since, e.info.Routes = "established", s.now(), routes
	s.bump()
}

// SetMonitoredView records which RIB a monitored peer's paths come from.
func (s *Store) SetMonitoredView(p MonitoredPeer, sysName, view string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entryKey(p.key())
	if e.info.BMP == nil {
		e.info.BMP = &BMPInfo{Router: p.Router}
	}
	e.info.BMP.SysName, e.info.BMP.View = sysName, view
}

// MonitoredUpdate applies one BGP UPDATE of a monitored peer: every announced
// prefix gets the attributes attrs.
func (s *Store) MonitoredUpdate(p MonitoredPeer, attrs *validator.Attributes, announced, withdrawn []NLRI) {
	s.updateKey(p.key(), attrs, announced, withdrawn)
}

// MonitoredEndOfRIB records a monitored peer's End-of-RIB for a family.
func (s *Store) MonitoredEndOfRIB(p MonitoredPeer, family string, isV6 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endOfRIB(s.entryKey(p.key()), family, isV6)
}

// MonitoredClear drops a monitored peer's paths and keeps the peer (a switch
// from the pre-policy to the post-policy view).
func (s *Store) MonitoredClear(p MonitoredPeer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.peers[p.key()]; ok {
		s.drop(e, nil)
		s.bump()
	}
}

// MonitoredDown forgets a monitored peer and drops its paths (BMP Peer Down,
// or the end of the BMP session that monitored it).
func (s *Store) MonitoredDown(p MonitoredPeer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.peers[p.key()]; ok {
		s.drop(e, nil)
		delete(s.peers, p.key())
		s.bump()
	}
}

// MonitoredPeers returns every peer monitored over BMP, sorted by router, then
// peer address.
func (s *Store) MonitoredPeers() []PeerInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []PeerInfo
	for k, e := range s.peers {
		if k.router.IsValid() {
			info := e.info
			if info.BMP == nil {
				info.BMP = &BMPInfo{Router: k.router}
			} else {
				b := *info.BMP
				info.BMP = &b
			}
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(a, b PeerInfo) int {
		if c := a.BMP.Router.Compare(b.BMP.Router); c != 0 {
			return c
		}
		return a.Address.Compare(b.Address)
	})
	return out
}
