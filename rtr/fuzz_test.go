package rtr

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
)

// FuzzReader: whatever a router (or anything reaching the port) sends, the
// PDU reader never panics, never reads past a PDU's length, and what it
// accepts encodes back to the same bytes.
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
		r := NewReader(bytes.NewReader(data))
		for range 64 {
			p, err := r.Read()
			var de *DecodeError
			switch {
			case errors.As(err, &de):
				if de.Fatal {
					return
				}
				continue
			case err != nil:
				return
			}
			if p.Type == TypeRouterKey {
				continue
			}
			raw := p.Append(nil)
			q, err := Parse(raw)
			if err != nil {
				t.Fatalf("re-encoded %+v does not parse: %v", p, err)
			}
			if !bytes.Equal(q.Append(nil), raw) {
				t.Fatalf("re-encoding of %+v is not stable", p)
			}
		}
	})
}
