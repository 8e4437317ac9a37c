package bgp

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"
	"github.com/osrg/gobgp/v4/pkg/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/gobgplog"
	"github.com/routewarden/routewarden/bgp/rib"
)

// TestRouteFeedMixedUpdateEndsNoTable: an UPDATE with IPv4 NLRI beside an
// empty IPv6 MP_UNREACH holds paths, so GoBGP forwards it on the feed but
// takes it for no End-of-RIB. The feed must not end the peer's IPv6 table on
// it either: no IPv6 End-of-RIB is recorded, and IPv6 paths kept stale
// through a graceful restart stay until the watch brings the real one.
func TestRouteFeedMixedUpdateEndsNoTable(t *testing.T) {
	t.Parallel()
	peer := netip.MustParseAddr("127.0.1.21")
	const v4, v6 = "10.244.1.0/24", "fd00:10:244:1::/64"
	for _, tc := range []struct {
		name      string
		restarted bool // the peer's IPv6 path is kept stale from a session before
		want      []string
	}{
		{name: "initial sync", want: []string{v4}},
		{name: "graceful restart", restarted: true, want: []string{v4, v6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := feedUnderTest(t)
			if tc.restarted {
				feedSession(t, f, peer)
				feedMsg(t, f, feedUpdate(t, peer, []string{v6}, false))
				feedEoR(f, peer, "ipv6-unicast", true)
				f.rt.mu.Lock()
				f.rt.m[peer] = time.Minute // GoBGP's negotiated restart time
				f.rt.mu.Unlock()
				feedMsg(t, f, feedPeerDown(t, peer))
			}
			feedSession(t, f, peer)
			feedMsg(t, f, feedUpdate(t, peer, []string{v4}, true))
			if eor := feedPeerInfo(t, f, peer).EndOfRIB; slices.Contains(eor, "ipv6-unicast") {
				t.Errorf("End-of-RIB recorded %v after an UPDATE with IPv4 paths and an empty IPv6 MP_UNREACH", eor)
			}
			feedEoR(f, peer, "ipv4-unicast", false)
			var got []string
			for pf := range routesOf(f.c.Store(), peer.String()) {
				got = append(got, pf)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("after the IPv4 End-of-RIB the store holds %v, want %v", got, tc.want)
			}
		})
	}
}

// feedUnderTest is a route feed of a collector whose GoBGP server serves but
// runs no BGP (the feed asks it for restart times).
func feedUnderTest(t *testing.T) *routeFeed {
	t.Helper()
	c, err := NewCollector(testConfig(freePort(t), true), zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	c.srv = server.NewBgpServer(gobgplog.Option(zerolog.Nop(), nil))
	go c.srv.Serve()
	t.Cleanup(c.srv.Stop)
	f, err := newRouteFeed(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.ln.Close() })
	return f
}

func feedMsg(t *testing.T, f *routeFeed, m *gbmp.BMPMessage) {
	t.Helper()
	b, err := m.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.handle(t.Context(), b, 0); err != nil {
		t.Fatal(err)
	}
}

// feedSession brings up a session of peer negotiating IPv4 and IPv6 unicast
// with graceful restart, and waits for the feed to have read its restart time.
func feedSession(t *testing.T, f *routeFeed, peer netip.Addr) {
	t.Helper()
	f.rt.mu.Lock()
	delete(f.rt.m, peer)
	f.rt.mu.Unlock()
	feedMsg(t, f, feedPeerUp(peer))
	eventually(t, "the restart time read", func() bool {
		f.rt.mu.Lock()
		defer f.rt.mu.Unlock()
		_, ok := f.rt.m[peer]
		return ok
	})
}

// feedPeerUp is the Peer Up of a session negotiating IPv4 and IPv6 unicast
// with graceful restart.
func feedPeerUp(peer netip.Addr) *gbmp.BMPMessage {
	open := func(as uint16, id string) *gobgp.BGPMessage {
		caps := []gobgp.ParameterCapabilityInterface{
			gobgp.NewCapMultiProtocol(gobgp.RF_IPv4_UC), gobgp.NewCapMultiProtocol(gobgp.RF_IPv6_UC),
			gobgp.NewCapGracefulRestart(false, true, 60, []*gobgp.CapGracefulRestartTuple{
				gobgp.NewCapGracefulRestartTuple(gobgp.RF_IPv4_UC, true),
				gobgp.NewCapGracefulRestartTuple(gobgp.RF_IPv6_UC, true)}),
			gobgp.NewCapFourOctetASNumber(uint32(as))}
		m, _ := gobgp.NewBGPOpenMessage(as, 90, netip.MustParseAddr(id),
			[]gobgp.OptionParameterInterface{gobgp.NewOptionParameterCapability(caps)})
		return m
	}
	return gbmp.NewBMPPeerUpNotification(feedPeerHeader(peer), netip.MustParseAddr("127.0.0.1"), 179, 40000,
		open(65000, "192.0.2.1"), open(65010, peer.String()))
}

func feedPeerHeader(peer netip.Addr) gbmp.BMPPeerHeader {
	return *gbmp.NewBMPPeerHeader(gbmp.BMP_PEER_TYPE_GLOBAL, 0, 0, peer, 65010, peer, 0)
}

// feedUpdate is a Route Monitoring of an UPDATE announcing prefixes (IPv4 as
// NLRI, IPv6 in MP_REACH), with an empty IPv6 MP_UNREACH beside them if
// emptyV6Unreach.
func feedUpdate(t *testing.T, peer netip.Addr, prefixes []string, emptyV6Unreach bool) *gbmp.BMPMessage {
	t.Helper()
	attrs := []gobgp.PathAttributeInterface{gobgp.NewPathAttributeOrigin(0),
		gobgp.NewPathAttributeAsPath([]gobgp.AsPathParamInterface{gobgp.NewAs4PathParam(2, []uint32{65010})})}
	var nlri4, nlri6 []gobgp.PathNLRI
	for _, p := range prefixes {
		pf := netip.MustParsePrefix(p)
		n, err := gobgp.NewIPAddrPrefix(pf)
		if err != nil {
			t.Fatal(err)
		}
		if pf.Addr().Is6() {
			nlri6 = append(nlri6, gobgp.PathNLRI{NLRI: n})
		} else {
			nlri4 = append(nlri4, gobgp.PathNLRI{NLRI: n})
		}
	}
	if len(nlri4) > 0 {
		nh, err := gobgp.NewPathAttributeNextHop(netip.MustParseAddr("10.0.0.21"))
		if err != nil {
			t.Fatal(err)
		}
		attrs = append(attrs, nh)
	}
	if len(nlri6) > 0 {
		mp, err := gobgp.NewPathAttributeMpReachNLRI(gobgp.RF_IPv6_UC, nlri6, netip.MustParseAddr("fd00::21"))
		if err != nil {
			t.Fatal(err)
		}
		attrs = append(attrs, mp)
	}
	if emptyV6Unreach {
		mp, err := gobgp.NewPathAttributeMpUnreachNLRI(gobgp.RF_IPv6_UC, nil)
		if err != nil {
			t.Fatal(err)
		}
		attrs = append(attrs, mp)
	}
	payload, err := gobgp.NewBGPUpdateMessage(nil, attrs, nlri4).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	m := gbmp.NewBMPRouteMonitoring(feedPeerHeader(peer), nil)
	m.Body.(*gbmp.BMPRouteMonitoring).BGPUpdatePayload = payload
	return m
}

// feedPeerDown is the Peer Down GoBGP's client sends when a session dies
// without a NOTIFICATION (GoBGP keeps its paths for a graceful restart).
func feedPeerDown(t *testing.T, peer netip.Addr) *gbmp.BMPMessage {
	t.Helper()
	return gbmp.NewBMPPeerDownNotification(feedPeerHeader(peer), gbmp.BMP_PEER_DOWN_REASON_REMOTE_BGP_NOTIFICATION, nil, nil)
}

// feedEoR is an End-of-RIB of the watch, applied as the feed applies it.
func feedEoR(f *routeFeed, peer netip.Addr, family string, isV6 bool) {
	f.mu.Lock()
	session := f.peers[peer].session
	f.mu.Unlock()
	f.endOfRIB(peer, family, isV6, session)
	f.mu.Lock()
	f.applyDueLocked(time.Now(), peer)
	f.mu.Unlock()
}

func feedPeerInfo(t *testing.T, f *routeFeed, peer netip.Addr) rib.PeerInfo {
	t.Helper()
	for _, p := range f.c.Store().Peers() {
		if p.Address == peer {
			return p
		}
	}
	t.Fatalf("the store has no peer %s", peer)
	return rib.PeerInfo{}
}
