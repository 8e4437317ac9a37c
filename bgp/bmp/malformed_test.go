package bmp

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/internal/wait"
)

// withLen sets a BMP message's length field.
func withLen(m []byte, n uint32) []byte {
	m = bytes.Clone(m)
	binary.BigEndian.PutUint32(m[1:5], n)
	return m
}

// rawUpdate is a Route Monitoring message from peer carrying a BGP UPDATE with
// the given withdrawn routes, path attributes and NLRI, encoded as they are.
func rawUpdate(t testing.TB, peer netip.Addr, withdrawn, attrs, nlri []byte) []byte {
	t.Helper()
	body := binary.BigEndian.AppendUint16(nil, uint16(len(withdrawn)))
	body = append(body, withdrawn...)
	body = binary.BigEndian.AppendUint16(body, uint16(len(attrs)))
	body = append(append(body, attrs...), nlri...)
	payload := append(bytes.Repeat([]byte{0xff}, 16), 0, 0, 2)
	payload = append(payload, body...)
	binary.BigEndian.PutUint16(payload[16:18], uint16(len(payload)))
	m := gbmp.NewBMPRouteMonitoring(peerHdr(peer, 0), nil)
	m.Body.(*gbmp.BMPRouteMonitoring).BGPUpdatePayload = payload
	return serialize(t, m)
}

// TestMalformedInput: broken BMP framing closes that session with a clear log
// line and drops the routes it brought; a malformed UPDATE is logged, what
// parsed of it is withdrawn, and the session and its other routes stay.
// Nothing panics.
func TestMalformedInput(t *testing.T) {
	// Not parallel: another test's goroutines would count as leaks here.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := netip.MustParseAddr("127.0.1.11")
	announce := func(t *testing.T, prefix string) []byte {
		return routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4(prefix, 0)}, false, false)
	}
	good := func(t *testing.T) []byte { return announce(t, "10.244.1.0/24") }
	line := func(prefix string) string {
		return prefix + " peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0"
	}
	// Kept: the route before the bad UPDATE and the one after it.
	kept := []string{line("10.244.1.0/24"), line("10.244.2.0/24")}
	cases := []struct {
		name, log string
		msg       func(t *testing.T) []byte
		// keep is what the store holds after a malformed UPDATE and a good
		// one announcing 10.244.2.0/24; nil: the session closes.
		keep []string
	}{
		{"BMP version 1", "BMP version 1, want 3", func(t *testing.T) []byte { m := good(t); m[0] = 1; return m }, nil},
		{"length below the header", "BMP message length 5 out of range", func(t *testing.T) []byte { return withLen(good(t), 5) }, nil},
		{"length of 2 GiB", "BMP message length 2147483648 out of range", func(t *testing.T) []byte { return withLen(good(t), 1<<31) }, nil},
		{"no per-peer header", "per-peer header: truncated", func(t *testing.T) []byte { return withLen(good(t)[:16], 16) }, nil},
		{"BGP length disagrees", "BGP message length", func(t *testing.T) []byte {
			m := good(t)
			m[6+42+17]++
			return m
		}, kept},
		{"attribute longer than the attributes: treat as withdraw", "path attribute 1: 200 bytes announced", func(t *testing.T) []byte {
			m := good(t)
			m[6+42+19+2+2+2] = 200 // ORIGIN's length; the NLRI still parse (RFC 7606 §4)
			return m
		}, []string{line("10.244.2.0/24")}},
		{"prefix length 33", "prefix length 33", func(t *testing.T) []byte {
			m := good(t)
			m[len(m)-4] = 33
			return m
		}, kept},
		{"NEXT_HOP of 3 bytes: treat as withdraw", "path attribute 3: 3 bytes, want 4", func(t *testing.T) []byte {
			return rawUpdate(t, p, []byte{24, 10, 244, 1}, []byte{0x40, 1, 1, 0, 0x40, 3, 3, 10, 0, 0}, []byte{24, 10, 244, 3})
		}, []string{line("10.244.2.0/24")}},
		// FRR 8.4 cuts the OPENs short for peers up before the BMP session:
		// the peer is recorded without its capabilities, the session goes on.
		{"peer up with garbage OPENs", "OPEN messages unreadable", func(t *testing.T) []byte {
			m := peerUp(t, p, 0, 0)
			copy(m[6+42+20:], bytes.Repeat([]byte{0x42}, 40))
			return m
		}, kept},
		{"initiation TLV overflowing", "BMP initiation message", func(t *testing.T) []byte {
			m := initiation(t, "tor1")
			m[8] = 0xff
			return m
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := startStation(t)
			conn := st.dial(t, append(initiation(t, "tor1"), good(t)...))
			wait.True(t, "the good route", 10*time.Second, func() bool { rs, _ := st.store.Routes(); return len(rs) == 1 })
			if _, err := conn.Write(tc.msg(t)); err != nil {
				t.Fatal(err)
			}
			logged := func() bool {
				return strings.Contains(st.logs.String(), tc.log) && strings.Contains(st.logs.String(), `"level":"warn"`)
			}
			if tc.keep != nil {
				if _, err := conn.Write(announce(t, "10.244.2.0/24")); err != nil {
					t.Fatal(err)
				}
				waitRoutes(t, st.store, tc.keep)
				wait.True(t, "a log line with "+tc.log, 10*time.Second, logged)
				if strings.Contains(st.logs.String(), "BMP session closed") {
					t.Errorf("the session closed on a malformed message")
				}
				reason := "malformed-update"
				if strings.HasPrefix(tc.name, "peer up") {
					reason = "peer-up-open-malformed"
				}
				if !bytes.Contains(gather(t, st), []byte(`routewarden_bmp_ignored_total{reason="`+reason+`"} 1`)) {
					t.Errorf("malformed message not counted:\n%s", gather(t, st))
				}
				if strings.HasSuffix(tc.name, "treat as withdraw") {
					// The one prefix that parsed is counted as dropped, on
					// the peer (the API's received vs accepted) and the counter.
					var received, dropped int64
					for _, pi := range st.store.MonitoredPeers() {
						received, dropped = received+pi.Paths.Received, dropped+pi.Paths.Dropped["treat-as-withdraw"]
					}
					if received != 3 || dropped != 1 || !bytes.Contains(gather(t, st), []byte(
						`routewarden_bmp_paths_dropped_total{peer="127.0.1.11",reason="treat-as-withdraw",router="127.0.0.1"} 1`)) {
						t.Errorf("received %d, dropped %d paths, want 3 and 1 (treat-as-withdraw):\n%s", received, dropped,
							gather(t, st))
					}
				}
				return
			}
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := conn.Read(make([]byte, 1)); err != io.EOF {
				t.Fatalf("read after bad input: %v, want EOF (the station closes the session)", err)
			}
			wait.True(t, "the session's routes to be dropped", 10*time.Second, func() bool { rs, _ := st.store.Routes(); return len(rs) == 0 })
			wait.True(t, "a log line with "+tc.log, 10*time.Second, logged)
		})
	}
}

func TestAllowedSources(t *testing.T) {
	t.Parallel()
	st := startStation(t, netip.MustParsePrefix("10.0.0.0/8"))
	conn := st.dial(t, nil)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read: %v, want EOF: 127.0.0.1 is outside 10.0.0.0/8", err)
	}
	if !strings.Contains(st.logs.String(), "refusing a BMP session") {
		t.Errorf("no log line for the refused session:\n%s", st.logs.String())
	}
}

// FuzzSession: no byte stream makes the station panic.
func FuzzSession(f *testing.F) {
	p := netip.MustParseAddr("127.0.1.11")
	f.Add(initiation(f, "tor1"))
	f.Add(append(peerUp(f, p, gobgp.BGP_ADD_PATH_RECEIVE, gobgp.BGP_ADD_PATH_SEND),
		routeMonitoring(f, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.1.0/24", 3)}, false, true)...))
	f.Add(routeMonitoring(f, p, post, "fd00::11", []gobgp.PathNLRI{v6("fd00:10:244:1::/64", 0)}, false, false))
	f.Add(routeMonitoring(f, p, 0, "", []gobgp.PathNLRI{v6("fd00:10:244:1::/64", 0)}, true, false))
	f.Add(peerDownMsg(f, p))
	st, err := New(Config{Listen: "127.0.0.1:0"}, rib.NewStore(), zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newSession(st, netip.MustParseAddr("127.0.0.1"))
		_ = s.run(bytes.NewReader(data))
		s.forget()
	})
}
