package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"
)

const (
	// BMPHeaderLen is the BMP common header's length; the message type is its last byte.
	BMPHeaderLen = gbmp.BMP_HEADER_SIZE
	// PeerHeaderLen is the BMP per-peer header's length.
	PeerHeaderLen = gbmp.BMP_PEER_HEADER_SIZE
	// maxBMPMessage bounds one BMP message: a Peer Up carries two OPENs, Route
	// Monitoring one UPDATE (at most 64 KiB with extended messages).
	maxBMPMessage = 1 << 20
)

// BMPReader reads whole BMP messages from a stream.
type BMPReader struct {
	br  *bufio.Reader
	hdr [BMPHeaderLen]byte
	buf []byte
}

// NewBMPReader reads from r, buffered.
func NewBMPReader(r io.Reader) *BMPReader {
	return &BMPReader{br: bufio.NewReaderSize(r, 256<<10), buf: make([]byte, 0, 64<<10)}
}

// Buffered is how many bytes were read from the stream but not returned yet.
func (r *BMPReader) Buffered() int { return r.br.Buffered() }

// Next returns the next message, common header included, in a buffer the
// following call reuses. It returns io.EOF when the stream ends between
// messages.
func (r *BMPReader) Next() ([]byte, error) {
	if _, err := io.ReadFull(r.br, r.hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("reading a BMP header: %w", err)
	}
	if r.hdr[0] != gbmp.BMP_VERSION {
		return nil, fmt.Errorf("BMP version %d, want %d", r.hdr[0], gbmp.BMP_VERSION)
	}
	n := int(binary.BigEndian.Uint32(r.hdr[1:5]))
	if n < BMPHeaderLen || n > maxBMPMessage {
		return nil, fmt.Errorf("BMP message length %d out of range [%d, %d]", n, BMPHeaderLen, maxBMPMessage)
	}
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	msg := r.buf[:n]
	copy(msg, r.hdr[:])
	if _, err := io.ReadFull(r.br, msg[BMPHeaderLen:]); err != nil {
		return nil, fmt.Errorf("reading a BMP message of %d bytes: %w", n, err)
	}
	return msg, nil
}

// PeerHeader is the BMP per-peer header.
type PeerHeader struct {
	Type, Flags uint8
	Dist        uint64
	Addr        netip.Addr
	AS          uint32
	BGPID       netip.Addr
}

// ParsePeerHeader reads the per-peer header at the start of b.
func ParsePeerHeader(b []byte) (PeerHeader, error) {
	if len(b) < PeerHeaderLen {
		return PeerHeader{}, fmt.Errorf("per-peer header: %w", ErrTruncated)
	}
	h := PeerHeader{Type: b[0], Flags: b[1], Dist: binary.BigEndian.Uint64(b[2:10]),
		AS: binary.BigEndian.Uint32(b[26:30]), BGPID: netip.AddrFrom4([4]byte(b[30:34]))}
	if h.Flags&gbmp.BMP_PEER_FLAG_IPV6 != 0 {
		h.Addr = netip.AddrFrom16([16]byte(b[10:26]))
	} else {
		h.Addr = netip.AddrFrom4([4]byte(b[22:26]))
	}
	return h, nil
}

// TwoByteAS reports whether the peer's AS paths have 2-octet ASNs.
func (h PeerHeader) TwoByteAS() bool { return h.Flags&gbmp.BMP_PEER_FLAG_TWO_AS != 0 }

// AddPathRx reports whether the monitored router receives path IDs from the
// peer: its OPEN (sent) offers receive, and the peer's (received) offers send.
func AddPathRx(up *gbmp.BMPPeerUpNotification, rf gobgp.Family) bool {
	return addPathMode(up.SentOpenMsg, rf)&gobgp.BGP_ADD_PATH_RECEIVE != 0 &&
		addPathMode(up.ReceivedOpenMsg, rf)&gobgp.BGP_ADD_PATH_SEND != 0
}

// openCaps is the OPEN in m (nil if m is not an OPEN) and its capabilities.
func openCaps(m *gobgp.BGPMessage) (*gobgp.BGPOpen, []gobgp.ParameterCapabilityInterface) {
	if m == nil {
		return nil, nil
	}
	open, ok := m.Body.(*gobgp.BGPOpen)
	if !ok {
		return nil, nil
	}
	var caps []gobgp.ParameterCapabilityInterface
	for _, o := range open.OptParams {
		if cp, ok := o.(*gobgp.OptionParameterCapability); ok {
			caps = append(caps, cp.Capability...)
		}
	}
	return open, caps
}

// OpenAS is an OPEN's ASN: the 4-octet capability's, else My AS (0 if m is
// not an OPEN).
func OpenAS(m *gobgp.BGPMessage) uint32 {
	open, caps := openCaps(m)
	if open == nil {
		return 0
	}
	for _, c := range caps {
		if as4, ok := c.(*gobgp.CapFourOctetASNumber); ok {
			return as4.CapValue
		}
	}
	return uint32(open.MyAS)
}

func addPathMode(m *gobgp.BGPMessage, rf gobgp.Family) gobgp.BGPAddPathMode {
	_, caps := openCaps(m)
	for _, c := range caps {
		if ap, ok := c.(*gobgp.CapAddPath); ok {
			for _, t := range ap.Tuples {
				if t.Family == rf {
					return t.Mode
				}
			}
		}
	}
	return 0
}

// Families is the address families an OPEN offers (IPv4 unicast when it has
// no multiprotocol capability).
func Families(m *gobgp.BGPMessage) []gobgp.Family {
	_, caps := openCaps(m)
	var out []gobgp.Family
	for _, c := range caps {
		if mp, ok := c.(*gobgp.CapMultiProtocol); ok {
			out = append(out, mp.CapValue)
		}
	}
	if len(out) == 0 {
		out = []gobgp.Family{gobgp.RF_IPv4_UC}
	}
	return out
}

// GracefulRestartFamilies is the address families an OPEN's graceful-restart
// capability lists (none without the capability).
func GracefulRestartFamilies(m *gobgp.BGPMessage) []gobgp.Family {
	_, caps := openCaps(m)
	var out []gobgp.Family
	for _, c := range caps {
		if gr, ok := c.(*gobgp.CapGracefulRestart); ok {
			for _, t := range gr.Tuples {
				out = append(out, gobgp.NewFamily(t.AFI, t.SAFI))
			}
		}
	}
	return out
}
