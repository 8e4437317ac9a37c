package bmp

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"github.com/routewarden/routewarden/internal/wait"
)

// TestPeerUpLocalAddress: a monitored peer's paths carry its session's
// local address from the router's Peer Up (the address the node sent them
// to, Cilium's peerAddress), also when the Peer Up's OPENs are unreadable
// (FRR 8.4 for a session older than the BMP session).
func TestPeerUpLocalAddress(t *testing.T) {
	t.Parallel()
	p := netip.MustParseAddr("127.0.1.11")
	for _, tc := range []struct {
		name string
		up   func(t *testing.T) []byte
	}{
		{"Peer Up", func(t *testing.T) []byte { return peerUp(t, p, 0, 0) }},
		{"Peer Up with garbage OPENs", func(t *testing.T) []byte {
			m := peerUp(t, p, 0, 0)
			copy(m[6+42+20:], bytes.Repeat([]byte{0x42}, 40))
			return m
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := startStation(t)
			st.dial(t, append(append(initiation(t, "tor1"), tc.up(t)...),
				routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.1.0/24", 0)}, false, false)...))
			wait.True(t, "the route", 10*time.Second, func() bool { rs, _ := st.store.Routes(); return len(rs) == 1 })
			rs, _ := st.store.Routes()
			if got, want := rs[0].Attrs().Local, netip.MustParseAddr("127.0.0.1"); got != want {
				t.Errorf("local address %v, want %v (the Peer Up's)", got, want)
			}
		})
	}
}
