package rtr

import (
	"errors"
	"io"
	"testing"
	"time"
)

// TestRouterErrorReport: an Error Report from the router ends its session
// without an Error Report in return (RFC 8210 section 5.11), even when it is
// malformed, of another version, or longer than a router may send.
func TestRouterErrorReport(t *testing.T) {
	_, s := serveNodes(t, Config{MaxDropShare: 1}, 1)
	good := (&PDU{Version: 1, Type: TypeErrorReport, ErrCode: ErrInternal, ErrText: "router trouble"}).Append(nil)
	for _, tc := range []struct {
		name  string
		query bool // a Reset Query first (a version 1 session)
		raw   []byte
	}{
		{"well-formed", false, good},
		{"malformed", false, []byte{1, TypeErrorReport, 0, 0, 0, 0, 0, 12, 0, 0, 0, 9}},
		{"version 2", false, []byte{2, TypeErrorReport, 0, 0, 0, 0, 0, 8}},
		{"version 0 in a version 1 session", true,
			(&PDU{Version: 0, Type: TypeErrorReport, ErrCode: ErrInternal}).Append(nil)},
		{"longer than a router may send", false, []byte{1, TypeErrorReport, 0, 0, 0, 1, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, s)
			if tc.query {
				c.send(PDU{Version: 1, Type: TypeResetQuery})
				c.response()
			}
			if _, err := c.conn.Write(tc.raw); err != nil {
				t.Fatal(err)
			}
			_ = c.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			if p, err := c.r.Read(); !errors.Is(err, io.EOF) {
				t.Errorf("got %+v (%v), want the session closed without a PDU", p, err)
			}
		})
	}
}
