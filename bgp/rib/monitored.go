package bgp

import (
	"cmp"
	"net/netip"
	"slices"
	"time"

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
	// View is the RIB of the paths ("pre-policy", "post-policy", "loc-rib";
	// empty reads as pre-policy): each view of a peer is held apart.
	View string
}

func (p MonitoredPeer) key() peerKey {
	k := peerKey{router: p.Router, typ: p.Type, dist: p.Distinguisher, addr: p.Address}
	if p.View == ViewPostPolicy {
		k.view = keyPostPolicy
	}
	return k
}

// BMPInfo is what BMP told about a monitored peer.
type BMPInfo struct {
	// Router is the monitoring router's address; SysName its Initiation sysName
	// (a Cilium node names itself there).
	Router  netip.Addr `json:"router"`
	SysName string     `json:"sysName,omitempty"`
	// View is the RIB whose routes are held: "pre-policy", "post-policy" (Adj-RIB-In) or "loc-rib".
	View string `json:"view,omitempty"`
	// Judged says the rules judge this view's paths: a pre-policy view is
	// not judged while the router sends the peer's post-policy view too (the
	// rule filtered-at-tor compares the two).
	Judged bool `json:"judged"`
	// Updated is when the view last changed (a Route Monitoring message).
	Updated time.Time `json:"updated,omitzero"`
}

// NLRI is one announced or withdrawn prefix with its ADD-PATH ID.
type NLRI = wire.NLRI

// MonitoredUp records a monitored peer's session (BMP Peer Up), in each of
// its views.
func (s *Store) MonitoredUp(p MonitoredPeer, info PeerInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entryKey(p.key())
	for _, e := range s.views(p) {
		routes := e.info.Routes
		var view string
		if e.info.BMP != nil {
			view = e.info.BMP.View
		}
		e.info = info
		if info.BMP != nil {
			b := *info.BMP
			b.View = cmp.Or(view, b.View)
			e.info.BMP = &b
		}
		e.info.State, e.info.Since, e.info.Routes = "established", s.now(), routes
	}
	s.bump()
}

// SetMonitoredView records that the router sends view of a monitored peer
// (p.View is ignored): a post-policy view takes over the peer's session
// information and, from now on, the rules judge it instead of the
// pre-policy view.
func (s *Store) SetMonitoredView(p MonitoredPeer, sysName, view string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.View = view
	_, existed := s.peers[p.key()]
	e := s.entryKey(p.key())
	for _, o := range s.views(p) {
		if o == e || existed {
			continue
		}
		e.info = o.info // the session's information, from the view that came first
		e.info.Routes, e.info.EndOfRIB = 0, nil
		if o.info.BMP == nil || o.info.BMP.View == "" {
			delete(s.peers, o.key) // Peer Up's placeholder, no view of its own
		}
	}
	b := BMPInfo{Router: p.Router}
	if e.info.BMP != nil {
		b = *e.info.BMP
	}
	b.SysName, b.View = sysName, view
	e.info.BMP = &b
	s.bump()
}

// MonitoredUpdate applies one BGP UPDATE of a monitored peer's view: every
// announced prefix gets the attributes attrs.
func (s *Store) MonitoredUpdate(p MonitoredPeer, attrs *validator.Attributes, announced, withdrawn []NLRI) {
	s.updateKey(p.key(), attrs, announced, withdrawn)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.peers[p.key()]; ok {
		if e.info.BMP == nil {
			e.info.BMP = &BMPInfo{Router: p.Router, View: p.View}
		}
		e.info.BMP.Updated = s.now()
	}
}

// MonitoredEndOfRIB records a monitored peer's End-of-RIB for a family.
func (s *Store) MonitoredEndOfRIB(p MonitoredPeer, family string, isV6 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endOfRIB(s.entryKey(p.key()), family, isV6)
}

// MonitoredClear drops a monitored peer's paths, of every view, and keeps
// the peer (a new BMP session re-sends the full table).
func (s *Store) MonitoredClear(p MonitoredPeer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.views(p) {
		s.drop(e, nil)
		s.bump()
	}
}

// MonitoredDown forgets a monitored peer and drops its paths, of every view
// (BMP Peer Down, or the end of the BMP session that monitored it).
func (s *Store) MonitoredDown(p MonitoredPeer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.views(p) {
		s.drop(e, nil)
		delete(s.peers, e.key)
		s.bump()
	}
}

// MonitoredPeers returns every peer monitored over BMP, one entry a view,
// sorted by router, then peer address, then view.
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
			info.BMP.Judged = !s.shadowed(k)
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(a, b PeerInfo) int {
		if c := a.BMP.Router.Compare(b.BMP.Router); c != 0 {
			return c
		}
		if c := a.Address.Compare(b.Address); c != 0 {
			return c
		}
		return cmp.Compare(a.BMP.View, b.BMP.View)
	})
	return out
}
