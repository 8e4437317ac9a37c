package rtr

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"net/netip"
	"reflect"
	"testing"
)

// TestPDURoundTrip: every PDU the cache sends encodes to the RFC's layout
// (checked byte for byte) and reads back as itself.
func TestPDURoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		pdu  PDU
		hex  string
	}{
		{"serial notify v1", PDU{Version: 1, Type: TypeSerialNotify, SessionID: 0x1234, Serial: 7},
			"010012340000000c" + "00000007"},
		{"serial query v0", PDU{Version: 0, Type: TypeSerialQuery, SessionID: 9, Serial: 1},
			"000100090000000c00000001"},
		{"reset query", PDU{Version: 1, Type: TypeResetQuery}, "0102000000000008"},
		{"cache response", PDU{Version: 1, Type: TypeCacheResponse, SessionID: 2}, "0103000200000008"},
		{"ipv4 prefix", PDU{Version: 1, Type: TypeIPv4Prefix, Flags: FlagAnnounce,
			Prefix: netip.MustParsePrefix("10.244.1.0/24"), MaxLen: 24, ASN: 65010},
			"0104000000000014" + "01181800" + "0af40100" + "0000fdf2"},
		{"ipv6 prefix withdraw", PDU{Version: 0, Type: TypeIPv6Prefix,
			Prefix: netip.MustParsePrefix("fd00::/64"), MaxLen: 128, ASN: 0},
			"0006000000000020" + "00408000" + "fd000000000000000000000000000000" + "00000000"},
		{"end of data v1", PDU{Version: 1, Type: TypeEndOfData, SessionID: 3, Serial: 4, Refresh: 60, Retry: 30, Expire: 600},
			"0107000300000018" + "00000004" + "0000003c" + "0000001e" + "00000258"},
		{"end of data v0", PDU{Version: 0, Type: TypeEndOfData, SessionID: 3, Serial: 4}, "000700030000000c00000004"},
		{"cache reset", PDU{Version: 1, Type: TypeCacheReset}, "0108000000000008"},
		{"error report", PDU{Version: 1, Type: TypeErrorReport, ErrCode: ErrNoData, ErrPDU: []byte{1, 2, 0, 0, 0, 0, 0, 8},
			ErrText: "no"}, "010a00020000001a" + "00000008" + "0102000000000008" + "00000002" + "6e6f"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.pdu.Append(nil)
			if got := hex.EncodeToString(b); got != tc.hex {
				t.Fatalf("encoded %s, want %s", got, tc.hex)
			}
			got, err := NewReader(bytes.NewReader(b)).Read()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.pdu) {
				t.Errorf("read back %+v, want %+v", got, tc.pdu)
			}
		})
	}
}

// TestPDUErrors: bad PDUs are refused with the Error Report code RFC 8210
// asks for; a bad length makes the stream unreadable (fatal).
func TestPDUErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hex   string
		code  uint16
		fatal bool
	}{
		{"version 2", "0202000000000008", ErrUnsupportedVersion, false},
		{"unknown type", "0105000000000008", ErrUnsupportedPDUType, false},
		{"reset query too long", "010200000000000c00000000", ErrCorruptData, false},
		{"length below the header", "0102000000000004", ErrCorruptData, true},
		{"length beyond the limit", "01020000ffffffff", ErrCorruptData, true},
		{"v0 end of data with v1 timers", "0007000000000018" + "00000000000000000000000000000000", ErrCorruptData, false},
		{"max length below length", "0104000000000014" + "01181000" + "0af40100" + "00000001", ErrCorruptData, false},
		{"prefix length 33", "0104000000000014" + "01212100" + "0af40100" + "00000001", ErrCorruptData, false},
		{"error report quoting beyond its end", "010a000000000010" + "000000ff" + "00000000", ErrCorruptData, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := hex.DecodeString(tc.hex)
			_, err := NewReader(bytes.NewReader(b)).Read()
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v, want a DecodeError", err)
			}
			if de.Code != tc.code || de.Fatal != tc.fatal {
				t.Errorf("code %d fatal %v, want %d %v (%s)", de.Code, de.Fatal, tc.code, tc.fatal, de.Msg)
			}
		})
	}
}

// TestReaderTruncated: a stream that ends inside a PDU is an unexpected EOF,
// one that ends between PDUs a clean EOF.
func TestReaderTruncated(t *testing.T) {
	b := (&PDU{Version: 1, Type: TypeSerialQuery, Serial: 1}).Append(nil)
	r := NewReader(bytes.NewReader(append(b, b[:10]...)))
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated PDU: %v, want unexpected EOF", err)
	}
	if _, err := NewReader(bytes.NewReader(nil)).Read(); !errors.Is(err, io.EOF) {
		t.Errorf("empty stream: %v, want EOF", err)
	}
}
