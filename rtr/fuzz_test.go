package rtr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"reflect"
	"testing"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bytes.Reader
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

// FuzzReader: whatever a router (or anything reaching the port) sends, the
// PDU reader never panics and never reads past the PDU it returns (what it
// consumed ends exactly at the PDU's length). What it accepts encodes back
// to the very bytes it came from, except for a prefix PDU, whose reserved
// byte and host bits the encoding clears: that encoding decodes to the same
// PDU.
func FuzzReader(f *testing.F) {
	for _, p := range []PDU{
		{Version: 1, Type: TypeResetQuery},
		{Version: 0, Type: TypeSerialQuery, SessionID: 1, Serial: 2},
		{Version: 1, Type: TypeIPv4Prefix, Flags: 1, Prefix: netip.MustParsePrefix("10.0.0.0/8"), MaxLen: 24, ASN: 1},
		{Version: 1, Type: TypeIPv6Prefix, Prefix: netip.MustParsePrefix("fd00::/8"), MaxLen: 8},
		{Version: 1, Type: TypeEndOfData, Serial: 1, Refresh: 1, Retry: 2, Expire: 3},
		{Version: 1, Type: TypeErrorReport, ErrPDU: []byte{1, 2, 0, 0, 0, 0, 0, 8}, ErrText: "x"},
	} {
		f.Add(p.Append(nil))
	}
	f.Add([]byte{1, 2, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		cr := &countingReader{r: bytes.NewReader(data)}
		r := NewReader(cr)
		off := 0 // where the next PDU starts
		for range 64 {
			p, err := r.Read()
			var de *DecodeError
			switch {
			case errors.As(err, &de):
				if de.Fatal {
					return
				}
			case err != nil:
				return
			}
			n := int(binary.BigEndian.Uint32(data[off+4:]))
			if cr.n != off+n {
				t.Fatalf("read %d bytes for a %d-byte PDU at %d", cr.n, n, off)
			}
			in := data[off : off+n]
			off += n
			if de != nil {
				continue
			}
			raw := p.Append(nil)
			if p.Type != TypeIPv4Prefix && p.Type != TypeIPv6Prefix {
				if !bytes.Equal(raw, in) {
					t.Fatalf("%x decodes to %+v, which encodes to %x", in, p, raw)
				}
				continue
			}
			q, err := Parse(raw)
			if err != nil || !reflect.DeepEqual(p, q) {
				t.Fatalf("%+v encodes to %x, which decodes to %+v (%v)", p, raw, q, err)
			}
		}
	})
}
