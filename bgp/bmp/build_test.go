package bmp

import (
	"net/netip"
	"testing"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"
)

// Builders of raw BMP messages, encoded by GoBGP, for the tests, the fuzz seeds
// and the benchmark's raw sender.

func initiation(t testing.TB, sysName string) []byte {
	t.Helper()
	return serialize(t, gbmp.NewBMPInitiation([]gbmp.BMPInfoTLVInterface{
		gbmp.NewBMPInfoTLVString(gbmp.BMP_INIT_TLV_TYPE_SYS_NAME, sysName),
		gbmp.NewBMPInfoTLVString(gbmp.BMP_INIT_TLV_TYPE_SYS_DESCR, "a test")}))
}

func peerHdr(peer netip.Addr, flags uint8) gbmp.BMPPeerHeader {
	return *gbmp.NewBMPPeerHeader(gbmp.BMP_PEER_TYPE_GLOBAL, flags, 0, peer, 65010, peer, 0)
}

// open is an OPEN with ADD-PATH for IPv4 and IPv6 unicast in mode (0: none).
func open(id string, mode gobgp.BGPAddPathMode) *gobgp.BGPMessage {
	caps := []gobgp.ParameterCapabilityInterface{
		gobgp.NewCapMultiProtocol(gobgp.RF_IPv4_UC), gobgp.NewCapMultiProtocol(gobgp.RF_IPv6_UC),
		gobgp.NewCapFourOctetASNumber(65010)}
	if mode != 0 {
		caps = append(caps, gobgp.NewCapAddPath([]*gobgp.CapAddPathTuple{
			gobgp.NewCapAddPathTuple(gobgp.RF_IPv4_UC, mode), gobgp.NewCapAddPathTuple(gobgp.RF_IPv6_UC, mode)}))
	}
	m, _ := gobgp.NewBGPOpenMessage(65010, 90, netip.MustParseAddr(id), []gobgp.OptionParameterInterface{gobgp.NewOptionParameterCapability(caps)})
	return m
}

// peerUp: the monitored router sent sent and received recv.
func peerUp(t testing.TB, peer netip.Addr, sent, recv gobgp.BGPAddPathMode) []byte {
	t.Helper()
	return serialize(t, gbmp.NewBMPPeerUpNotification(peerHdr(peer, 0), netip.MustParseAddr("127.0.0.1"), 179, 40000,
		open("127.0.0.1", sent), open(peer.String(), recv)))
}

func peerDownMsg(t testing.TB, peer netip.Addr) []byte {
	t.Helper()
	return serialize(t, gbmp.NewBMPPeerDownNotification(peerHdr(peer, 0),
		gbmp.BMP_PEER_DOWN_REASON_REMOTE_NO_NOTIFICATION, nil, nil))
}

// routeMonitoring wraps an UPDATE announcing nlri (IPv4 classic or MP_REACH
// for IPv6) with next hop nh; withPathID encodes ADD-PATH IDs.
func routeMonitoring(t testing.TB, peer netip.Addr, flags uint8, nh string, nlri []gobgp.PathNLRI, withdraw bool, withPathID bool) []byte {
	t.Helper()
	attrs := []gobgp.PathAttributeInterface{gobgp.NewPathAttributeOrigin(0),
		gobgp.NewPathAttributeAsPath([]gobgp.AsPathParamInterface{gobgp.NewAs4PathParam(2, []uint32{65010})}),
		gobgp.NewPathAttributeCommunities([]uint32{65010<<16 | 100})}
	var msg *gobgp.BGPMessage
	v6 := len(nlri) > 0 && nlri[0].NLRI.(*gobgp.IPAddrPrefix).Prefix.Addr().Is6()
	var err error
	switch {
	case v6 && withdraw:
		var mp *gobgp.PathAttributeMpUnreachNLRI
		mp, err = gobgp.NewPathAttributeMpUnreachNLRI(gobgp.RF_IPv6_UC, nlri)
		msg = gobgp.NewBGPUpdateMessage(nil, []gobgp.PathAttributeInterface{mp}, nil)
	case v6:
		var mp *gobgp.PathAttributeMpReachNLRI
		mp, err = gobgp.NewPathAttributeMpReachNLRI(gobgp.RF_IPv6_UC, nlri, netip.MustParseAddr(nh))
		msg = gobgp.NewBGPUpdateMessage(nil, append(attrs, mp), nil)
	case withdraw:
		msg = gobgp.NewBGPUpdateMessage(nlri, nil, nil)
	default:
		var next *gobgp.PathAttributeNextHop
		next, err = gobgp.NewPathAttributeNextHop(netip.MustParseAddr(nh))
		msg = gobgp.NewBGPUpdateMessage(nil, append(attrs, next), nlri)
	}
	if err != nil {
		t.Fatal(err)
	}
	var opts []*gobgp.MarshallingOption
	if withPathID {
		opts = append(opts, &gobgp.MarshallingOption{AddPath: map[gobgp.Family]gobgp.BGPAddPathMode{
			gobgp.RF_IPv4_UC: gobgp.BGP_ADD_PATH_BOTH, gobgp.RF_IPv6_UC: gobgp.BGP_ADD_PATH_BOTH}})
	}
	payload, err := msg.Serialize(opts...)
	if err != nil {
		t.Fatal(err)
	}
	m := gbmp.NewBMPRouteMonitoring(peerHdr(peer, flags), nil)
	m.Body.(*gbmp.BMPRouteMonitoring).BGPUpdatePayload = payload
	return serialize(t, m)
}

// v4 and v6 are the NLRI of prefix p with ADD-PATH ID id.
func v4(p string, id uint32) gobgp.PathNLRI { return withPathID(p, id) }
func v6(p string, id uint32) gobgp.PathNLRI { return withPathID(p, id) }

func withPathID(p string, id uint32) gobgp.PathNLRI {
	n, _ := gobgp.NewIPAddrPrefix(netip.MustParsePrefix(p))
	return gobgp.PathNLRI{NLRI: n, ID: id}
}

func serialize(t testing.TB, m *gbmp.BMPMessage) []byte {
	t.Helper()
	b, err := m.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
