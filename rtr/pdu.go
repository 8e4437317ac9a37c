// Package rtr is routewarden's RPKI-to-Router cache server: it serves the
// cluster's allocations, as ROAs (validator/roa), to the ToR switches, which
// then reject a stale or unallocated announcement themselves (route origin
// validation, RFC 6811). It speaks RFC 8210 (version 1) and falls back to
// RFC 6810 (version 0) for older routers. This file is the PDU codec.
package rtr

import (
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"time"
)

// PDU types (RFC 8210 section 5).
const (
	TypeSerialNotify  uint8 = 0
	TypeSerialQuery   uint8 = 1
	TypeResetQuery    uint8 = 2
	TypeCacheResponse uint8 = 3
	TypeIPv4Prefix    uint8 = 4
	TypeIPv6Prefix    uint8 = 6
	TypeEndOfData     uint8 = 7
	TypeCacheReset    uint8 = 8
	TypeRouterKey     uint8 = 9
	TypeErrorReport   uint8 = 10
)

// Error Report codes (RFC 8210 section 12).
const (
	ErrCorruptData          uint16 = 0
	ErrInternal             uint16 = 1
	ErrNoData               uint16 = 2
	ErrInvalidRequest       uint16 = 3
	ErrUnsupportedVersion   uint16 = 4
	ErrUnsupportedPDUType   uint16 = 5
	ErrUnexpectedPDUVersion uint16 = 8
)

// The protocol versions: RFC 6810 and RFC 8210.
const (
	Version0   uint8 = 0
	Version1   uint8 = 1
	MaxVersion       = Version1
)

// FlagAnnounce marks a prefix PDU as an announcement (clear: a withdrawal).
const FlagAnnounce uint8 = 1

// headerLen is the common header: version, type, session ID or error code, length.
const headerLen = 8

// MaxPDULen bounds what NewReader accepts.
const MaxPDULen = 64 << 10

// maxRouterPDULen bounds what the server reads from a router: its queries
// are 8 or 12 bytes, and an Error Report quotes one of the cache's PDUs (32
// bytes at most) with a diagnostic text, which this leaves ample room for.
const maxRouterPDULen = 4 << 10

// PDU is one RTR protocol data unit; which fields count depends on Type.
type PDU struct {
	Version uint8
	Type    uint8
	// SessionID is the header's session ID (Serial Notify, Serial Query,
	// Cache Response, End of Data).
	SessionID uint16
	// ErrCode is the header's error code (Error Report), where the others
	// carry the session ID.
	ErrCode uint16
	Serial  uint32
	// Prefix PDUs.
	Flags  uint8
	Prefix netip.Prefix
	MaxLen uint8
	ASN    uint32
	// End of Data, version 1 only (seconds).
	Refresh, Retry, Expire uint32
	// Error Report: the PDU in error and the diagnostic text.
	ErrPDU  []byte
	ErrText string
}

// Append appends the PDU's encoding to b.
func (p *PDU) Append(b []byte) []byte {
	start := len(b)
	b = append(b, p.Version, p.Type)
	if p.Type == TypeErrorReport {
		b = binary.BigEndian.AppendUint16(b, p.ErrCode)
	} else {
		b = binary.BigEndian.AppendUint16(b, p.SessionID)
	}
	b = binary.BigEndian.AppendUint32(b, 0) // the length, set below
	switch p.Type {
	case TypeSerialNotify, TypeSerialQuery:
		b = binary.BigEndian.AppendUint32(b, p.Serial)
	case TypeIPv4Prefix, TypeIPv6Prefix:
		b = append(b, p.Flags, uint8(p.Prefix.Bits()), p.MaxLen, 0)
		b = append(b, p.Prefix.Addr().AsSlice()...)
		b = binary.BigEndian.AppendUint32(b, p.ASN)
	case TypeEndOfData:
		b = binary.BigEndian.AppendUint32(b, p.Serial)
		if p.Version >= Version1 {
			b = binary.BigEndian.AppendUint32(b, p.Refresh)
			b = binary.BigEndian.AppendUint32(b, p.Retry)
			b = binary.BigEndian.AppendUint32(b, p.Expire)
		}
	case TypeErrorReport:
		b = binary.BigEndian.AppendUint32(b, uint32(len(p.ErrPDU)))
		b = append(b, p.ErrPDU...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(p.ErrText)))
		b = append(b, p.ErrText...)
	}
	binary.BigEndian.PutUint32(b[start+4:], uint32(len(b)-start))
	return b
}

// fixedLen is the length a PDU type must have in a version (0: variable or unknown).
func fixedLen(version, typ uint8) uint32 {
	switch typ {
	case TypeSerialNotify, TypeSerialQuery:
		return 12
	case TypeResetQuery, TypeCacheResponse, TypeCacheReset:
		return 8
	case TypeIPv4Prefix:
		return 20
	case TypeIPv6Prefix:
		return 32
	case TypeEndOfData:
		if version >= Version1 {
			return 24
		}
		return 12
	}
	return 0
}

// DecodeError is a PDU the reader refused, with the Error Report code it
// calls for and the PDU's bytes to quote in it.
type DecodeError struct {
	Code uint16
	PDU  []byte
	Msg  string
	// Fatal says the stream cannot be read further (the length was bad).
	Fatal bool
}

func (e *DecodeError) Error() string { return e.Msg }

func corrupt(raw []byte, format string, args ...any) *DecodeError {
	return &DecodeError{Code: ErrCorruptData, PDU: raw, Msg: fmt.Sprintf(format, args...)}
}

// Parse decodes one complete PDU (header included; len(raw) is its length).
func Parse(raw []byte) (PDU, error) {
	if len(raw) < headerLen {
		return PDU{}, &DecodeError{Code: ErrCorruptData, PDU: raw, Msg: "PDU shorter than its header", Fatal: true}
	}
	p := PDU{Version: raw[0], Type: raw[1]}
	if p.Type == TypeErrorReport {
		p.ErrCode = binary.BigEndian.Uint16(raw[2:])
	} else {
		p.SessionID = binary.BigEndian.Uint16(raw[2:])
	}
	if n := binary.BigEndian.Uint32(raw[4:]); n != uint32(len(raw)) {
		return p, &DecodeError{Code: ErrCorruptData, PDU: raw, Msg: fmt.Sprintf("length %d, got %d bytes", n, len(raw)), Fatal: true}
	}
	if p.Version > MaxVersion {
		return p, &DecodeError{Code: ErrUnsupportedVersion, PDU: raw, Msg: fmt.Sprintf("protocol version %d (this cache speaks 0 and 1)", p.Version)}
	}
	if want := fixedLen(p.Version, p.Type); want != 0 && want != uint32(len(raw)) {
		return p, corrupt(raw, "PDU type %d of version %d has length %d, expected %d", p.Type, p.Version, len(raw), want)
	}
	body := raw[headerLen:]
	switch p.Type {
	case TypeSerialNotify, TypeSerialQuery:
		p.Serial = binary.BigEndian.Uint32(body)
	case TypeResetQuery, TypeCacheResponse, TypeCacheReset:
	case TypeIPv4Prefix, TypeIPv6Prefix:
		return parsePrefix(p, raw)
	case TypeEndOfData:
		p.Serial = binary.BigEndian.Uint32(body)
		if p.Version >= Version1 {
			p.Refresh, p.Retry, p.Expire = binary.BigEndian.Uint32(body[4:]), binary.BigEndian.Uint32(body[8:]), binary.BigEndian.Uint32(body[12:])
		}
	case TypeErrorReport:
		return parseErrorReport(p, raw)
	default:
		return p, &DecodeError{Code: ErrUnsupportedPDUType, PDU: raw, Msg: fmt.Sprintf("unsupported PDU type %d", p.Type)}
	}
	return p, nil
}

func parsePrefix(p PDU, raw []byte) (PDU, error) {
	body := raw[headerLen:]
	p.Flags, p.MaxLen = body[0], body[2]
	bits := int(body[1])
	addr, _ := netip.AddrFromSlice(body[4 : len(body)-4])
	p.ASN = binary.BigEndian.Uint32(body[len(body)-4:])
	if bits > addr.BitLen() || int(p.MaxLen) > addr.BitLen() || int(p.MaxLen) < bits {
		return p, corrupt(raw, "prefix length %d, max length %d for a %d-bit address", bits, p.MaxLen, addr.BitLen())
	}
	p.Prefix = netip.PrefixFrom(addr, bits).Masked()
	return p, nil
}

func parseErrorReport(p PDU, raw []byte) (PDU, error) {
	body := raw[headerLen:]
	if len(body) < 8 {
		return p, corrupt(raw, "Error Report of %d bytes", len(raw))
	}
	n := binary.BigEndian.Uint32(body)
	if uint64(n)+8 > uint64(len(body)) {
		return p, corrupt(raw, "Error Report quotes %d bytes, has %d", n, len(body)-8)
	}
	p.ErrPDU = append([]byte(nil), body[4:4+n]...)
	rest := body[4+n:]
	t := binary.BigEndian.Uint32(rest)
	if uint64(t) != uint64(len(rest)-4) {
		return p, corrupt(raw, "Error Report text of %d bytes, has %d", t, len(rest)-4)
	}
	p.ErrText = string(rest[4:])
	return p, nil
}

// Reader reads PDUs from a stream, one buffer reused.
type Reader struct {
	r      io.Reader
	buf    []byte
	maxLen uint32
	// conn, when set, gets a read deadline of bodyTimeout for the rest of a
	// PDU once its header is in (cleared when it is complete).
	conn        interface{ SetReadDeadline(time.Time) error }
	bodyTimeout time.Duration
}

// NewReader reads PDUs of up to MaxPDULen bytes from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r, buf: make([]byte, 64), maxLen: MaxPDULen} }

// Read returns the next PDU. A *DecodeError says which Error Report the PDU
// calls for; when it is Fatal the stream is out of step and must be closed.
// Other errors are the stream's (io.EOF at a PDU boundary).
func (r *Reader) Read() (PDU, error) {
	if _, err := io.ReadFull(r.r, r.buf[:headerLen]); err != nil {
		return PDU{}, err
	}
	n := binary.BigEndian.Uint32(r.buf[4:])
	if n < headerLen || n > r.maxLen {
		raw := append([]byte(nil), r.buf[:headerLen]...)
		return PDU{}, &DecodeError{Code: ErrCorruptData, PDU: raw, Fatal: true,
			Msg: fmt.Sprintf("PDU length %d (expected %d to %d)", n, headerLen, r.maxLen)}
	}
	if int(n) > cap(r.buf) {
		r.buf = append(r.buf[:headerLen], make([]byte, int(n)-headerLen)...)
	}
	raw := r.buf[:n]
	if r.conn != nil && n > headerLen {
		_ = r.conn.SetReadDeadline(time.Now().Add(r.bodyTimeout))
	}
	if _, err := io.ReadFull(r.r, raw[headerLen:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return PDU{}, fmt.Errorf("reading the %d-byte PDU whose header arrived: %w", n, err)
	}
	if r.conn != nil {
		_ = r.conn.SetReadDeadline(time.Time{})
	}
	return Parse(raw)
}
