package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"

	"github.com/routewarden/routewarden/bgp/wire"
)

// The BMP sender is the raw sender speaking BMP (RFC 7854) to routewarden's
// BMP station instead of BGP: a router monitoring the raw sender's session
// (the monitored peer is the raw sender's address, AS 65000, no ADD-PATH)
// streams what it received. It writes an Initiation, a Peer Up, then every
// message of buildUpdates, byte for byte, each in a pre-policy Route
// Monitoring message (the UPDATEs, then End-of-RIB for IPv4 and IPv6), in one
// write, as fast as the station reads; the session stays open until stop. So
// the station decodes the very UPDATEs BIRD and routewarden's BGP collector
// read from the raw sender.

// bmpRouter is the monitoring router: the BMP session's source address.
const bmpRouter = "127.0.0.4"

// buildBMPStream wraps msgs (buildUpdates's BGP messages) in the BMP session
// of a router that monitors peer.
func buildBMPStream(msgs []byte, peer netip.Addr) ([]byte, error) {
	router := netip.MustParseAddr(bmpRouter)
	hdr := gbmp.NewBMPPeerHeader(gbmp.BMP_PEER_TYPE_GLOBAL, 0, 0, peer, 65000, peer, 0)
	sent, err := benchOpen(router)
	if err != nil {
		return nil, err
	}
	recv, err := benchOpen(peer)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, m := range []*gbmp.BMPMessage{
		gbmp.NewBMPInitiation([]gbmp.BMPInfoTLVInterface{
			gbmp.NewBMPInfoTLVString(gbmp.BMP_INIT_TLV_TYPE_SYS_NAME, "bench-router"),
			gbmp.NewBMPInfoTLVString(gbmp.BMP_INIT_TLV_TYPE_SYS_DESCR, "routewarden's bench harness (hack/bench)")}),
		gbmp.NewBMPPeerUpNotification(*hdr, router, 179, 40000, sent, recv),
	} {
		b, err := m.Serialize()
		if err != nil {
			return nil, fmt.Errorf("encoding the BMP sender's %T: %w", m.Body, err)
		}
		out = append(out, b...)
	}
	ph, err := hdr.Serialize()
	if err != nil {
		return nil, fmt.Errorf("encoding the BMP per-peer header: %w", err)
	}
	for off := 0; off < len(msgs); {
		if len(msgs)-off < bgp.BGP_HEADER_LENGTH {
			return nil, fmt.Errorf("a truncated BGP header at byte %d of %d", off, len(msgs))
		}
		l := int(binary.BigEndian.Uint16(msgs[off+16:]))
		if l < bgp.BGP_HEADER_LENGTH || off+l > len(msgs) {
			return nil, fmt.Errorf("a BGP message of %d bytes at byte %d of %d", l, off, len(msgs))
		}
		out = append(out, 3, 0, 0, 0, 0, gbmp.BMP_MSG_ROUTE_MONITORING)
		binary.BigEndian.PutUint32(out[len(out)-5:], uint32(wire.BMPHeaderLen+len(ph)+l))
		out = append(out, ph...)
		out = append(out, msgs[off:off+l]...)
		off += l
	}
	return out, nil
}

// benchOpen is the OPEN of a speaker id in AS 65000 with IPv4 and IPv6
// unicast, as the raw sender's session negotiates them (no ADD-PATH).
func benchOpen(id netip.Addr) (*bgp.BGPMessage, error) {
	caps := []bgp.ParameterCapabilityInterface{bgp.NewCapMultiProtocol(bgp.RF_IPv4_UC),
		bgp.NewCapMultiProtocol(bgp.RF_IPv6_UC), bgp.NewCapFourOctetASNumber(65000)}
	m, err := bgp.NewBGPOpenMessage(65000, 90, id, []bgp.OptionParameterInterface{bgp.NewOptionParameterCapability(caps)})
	if err != nil {
		return nil, fmt.Errorf("building the Peer Up's OPEN of %s: %w", id, err)
	}
	return m, nil
}

// bmpSender is a started BMP session; start returns when it is connected
// (BMP has no handshake: the station reads from the first byte on).
type bmpSender struct {
	stream []byte
	c      net.Conn
}

func (s *bmpSender) start(ctx context.Context, port int) (time.Time, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(bmpRouter)}, Timeout: 10 * time.Second}
	c, err := d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return time.Time{}, fmt.Errorf("connecting to the BMP station: %w", err)
	}
	connected := time.Now()
	s.c = c
	go func() { _, _ = c.Write(s.stream) }()
	return connected, nil
}

func (s *bmpSender) stop() {
	if s.c != nil {
		_ = s.c.Close()
	}
}
