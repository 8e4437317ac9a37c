package bmp

import (
	"net/netip"
	"testing"

	gobgp "github.com/osrg/gobgp/v3/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v3/pkg/packet/bmp"
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
	return *gbmp.NewBMPPeerHeader(gbmp.BMP_PEER_TYPE_GLOBAL, flags, 0, peer.String(), 65010, peer.String(), 0)
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
	return gobgp.NewBGPOpenMessage(65010, 90, id, []gobgp.OptionParameterInterface{gobgp.NewOptionParameterCapability(caps)})
}

// peerUp: the monitored router sent sent and received recv.
func peerUp(t testing.TB, peer netip.Addr, sent, recv gobgp.BGPAddPathMode) []byte {
	t.Helper()
	return serialize(t, gbmp.NewBMPPeerUpNotification(peerHdr(peer, 0), "127.0.0.1", 179, 40000,
		open("127.0.0.1", sent), open(peer.String(), recv)))
}

func peerDownMsg(t testing.TB, peer netip.Addr) []byte {
	t.Helper()
	return serialize(t, gbmp.NewBMPPeerDownNotification(peerHdr(peer, 0),
		gbmp.BMP_PEER_DOWN_REASON_REMOTE_NO_NOTIFICATION, nil, nil))
}

// routeMonitoring wraps an UPDATE announcing nlri (IPv4 classic or MP_REACH
// for IPv6) with next hop nh; withPathID encodes ADD-PATH IDs.
func routeMonitoring(t testing.TB, peer netip.Addr, flags uint8, nh string, nlri []gobgp.AddrPrefixInterface, withdraw bool, withPathID bool) []byte {
	t.Helper()
	attrs := []gobgp.PathAttributeInterface{gobgp.NewPathAttributeOrigin(0),
		gobgp.NewPathAttributeAsPath([]gobgp.AsPathParamInterface{gobgp.NewAs4PathParam(2, []uint32{65010})}),
		gobgp.NewPathAttributeCommunities([]uint32{65010<<16 | 100})}
	var msg *gobgp.BGPMessage
	v6 := len(nlri) > 0 && nlri[0].AFI() == gobgp.AFI_IP6
	switch {
	case v6 && withdraw:
		msg = gobgp.NewBGPUpdateMessage(nil, []gobgp.PathAttributeInterface{gobgp.NewPathAttributeMpUnreachNLRI(nlri)}, nil)
	case v6:
		msg = gobgp.NewBGPUpdateMessage(nil, append(attrs, gobgp.NewPathAttributeMpReachNLRI(nh, nlri)), nil)
	case withdraw:
		var w []*gobgp.IPAddrPrefix
		for _, n := range nlri {
			w = append(w, n.(*gobgp.IPAddrPrefix))
		}
		msg = gobgp.NewBGPUpdateMessage(w, nil, nil)
	default:
		var a []*gobgp.IPAddrPrefix
		for _, n := range nlri {
			a = append(a, n.(*gobgp.IPAddrPrefix))
		}
		msg = gobgp.NewBGPUpdateMessage(nil, append(attrs, gobgp.NewPathAttributeNextHop(nh)), a)
	}
	var opts []*gobgp.MarshallingOption
	if withPathID {
		opts = append(opts, &gobgp.MarshallingOption{AddPath: map[gobgp.RouteFamily]gobgp.BGPAddPathMode{
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
func v4(p string, id uint32) gobgp.AddrPrefixInterface {
	return withPathID(p, id, gobgp.NewIPAddrPrefix)
}
func v6(p string, id uint32) gobgp.AddrPrefixInterface {
	return withPathID(p, id, gobgp.NewIPv6AddrPrefix)
}

func withPathID[N gobgp.AddrPrefixInterface](p string, id uint32, nlri func(uint8, string) N) gobgp.AddrPrefixInterface {
	pf := netip.MustParsePrefix(p)
	n := nlri(uint8(pf.Bits()), pf.Addr().String())
	n.SetPathIdentifier(id)
	n.SetPathLocalIdentifier(id)
	return n
}

func serialize(t testing.TB, m *gbmp.BMPMessage) []byte {
	t.Helper()
	b, err := m.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
