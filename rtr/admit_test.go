package rtr

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/logbuf"
	"github.com/routewarden/routewarden/internal/wait"
)

// dialFrom connects to s from the loopback address from (any of 127.0.0.0/8).
func dialFrom(t *testing.T, s *Server, from string) *client {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	conn, err := d.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &client{t: t, conn: conn, r: NewReader(conn)}
}

// holders are n clients (127.0.2.1…) that each asked once and stay connected.
func holders(t *testing.T, s *Server, n int) []*client {
	t.Helper()
	var cs []*client
	for i := 1; i <= n; i++ {
		c := dialFrom(t, s, fmt.Sprintf("127.0.2.%d", i))
		c.reset()
		cs = append(cs, c)
	}
	return cs
}

// TestAdmission: 30 clients that each sent one query cannot keep a router
// out. A configured router (rtr.routers) is served beside them at once;
// an unlisted one takes the place of the session quiet longest once it has
// been quiet for PDUTimeout; one address beyond 4 sessions replaces its own
// oldest.
func TestAdmission(t *testing.T) {
	t.Run("a configured router is served while maxSessions are held", func(t *testing.T) {
		_, s := serveNodes(t, Config{MaxDropShare: 1, MaxSessions: 30, PDUTimeout: time.Hour,
			Routers: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}, 1)
		holders(t, s, 30)
		if c := dialFrom(t, s, "127.0.2.31"); !c.closed() {
			t.Fatal("a 31st client was served while 30 fresh sessions held every slot")
		}
		router := dialFrom(t, s, "127.0.0.1")
		if eod := router.reset(); eod.Serial != s.Status().Serial {
			t.Fatalf("the router got serial %d", eod.Serial)
		}
		if n := counterValue(s.metrics.refused.WithLabelValues("maxSessions")); n != 1 {
			t.Errorf("refused for maxSessions: %g, want 1", n)
		}
	})
	t.Run("an unlisted router takes the place of the quietest session", func(t *testing.T) {
		_, s := serveNodes(t, Config{MaxDropShare: 1, MaxSessions: 30, PDUTimeout: 200 * time.Millisecond}, 1)
		hs := holders(t, s, 30)
		time.Sleep(300 * time.Millisecond) // PDUTimeout: only a query keeps a session from being quiet
		router := dialFrom(t, s, "127.0.0.5")
		router.reset()
		if !hs[0].closed() {
			t.Fatal("the session quiet longest stayed open")
		}
		if n := counterValue(s.metrics.evicted.WithLabelValues(evictQuiet)); n != 1 {
			t.Errorf("evicted as quiet: %g, want 1", n)
		}
		if n := len(s.Status().Clients); n != 30 {
			t.Errorf("%d sessions, want 30", n)
		}
	})
	t.Run("one address beyond four sessions replaces its oldest", func(t *testing.T) {
		_, s := serveNodes(t, Config{MaxDropShare: 1, PDUTimeout: time.Hour}, 1)
		var cs []*client
		for range maxPerClient + 1 {
			c := dialFrom(t, s, "127.0.3.1")
			c.reset()
			cs = append(cs, c)
		}
		if !cs[0].closed() {
			t.Fatal("the oldest of five sessions from one address stayed open")
		}
		wait.True(t, "four sessions", 20*time.Second, func() bool { return len(s.Status().Clients) == maxPerClient })
		cs[maxPerClient].reset() // the newest is served
	})
}

// TestErrorReportsCounted: every Error Report sent is counted, those the
// PDU handler sends (Invalid Request, Unexpected Protocol Version) too, per
// client (whose series go with its last session: another one stays open
// here) and by code (kept).
func TestErrorReportsCounted(t *testing.T) {
	_, s := serveNodes(t, Config{MaxDropShare: 1}, 1)
	for i, tc := range []struct {
		name  string
		query bool
		p     PDU
		code  uint16
	}{
		{"a Serial Notify from a router", false, PDU{Version: 1, Type: TypeSerialNotify}, ErrInvalidRequest},
		{"version 0 in a version 1 session", true, PDU{Version: 0, Type: TypeResetQuery}, ErrUnexpectedPDUVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from := fmt.Sprintf("127.0.4.%d", i+1)
			dialFrom(t, s, from).reset()
			c := dialFrom(t, s, from)
			if tc.query {
				c.reset()
			}
			c.send(tc.p)
			if p := c.read(); p.Type != TypeErrorReport || p.ErrCode != tc.code {
				t.Fatalf("got %+v, want Error Report %d", p, tc.code)
			}
			if n := counterValue(s.metrics.errors.WithLabelValues(from, "sent")); n != 1 {
				t.Errorf("error reports sent to %s: %g, want 1", from, n)
			}
			if n := counterValue(s.metrics.reports.WithLabelValues("sent", itoa(uint32(tc.code)))); n != 1 {
				t.Errorf("error reports sent with code %d: %g, want 1", tc.code, n)
			}
		})
	}
}

// TestLogThrottle: a burst, then one line per interval, each saying how many
// were left out before it.
func TestLogThrottle(t *testing.T) {
	l := logThrottle{every: 10 * time.Second, burst: 3}
	now := time.Unix(0, 0)
	var written, left int
	for range 1000 {
		if ok, n := l.allow(now); ok {
			written++
			left += n
		}
		now = now.Add(10 * time.Millisecond) // 100 a second for 10 s
	}
	if written != 3 || left != 0 {
		t.Errorf("%d lines written, %d reported left out; want the burst of 3", written, left)
	}
	if ok, n := l.allow(now); !ok || n != 997 {
		t.Errorf("an interval later: %v, %d reported left out; want a line saying 997", ok, n)
	}
}

// TestProbeLogs: 2,400 probe connections (1,200 that connect and leave,
// 1,200 from outside AllowedClients) cost a burst of log lines and one per
// 10 s, not two lines each; a configured router's session is logged in full.
func TestProbeLogs(t *testing.T) {
	src := &memSource{}
	src.setNodes(1)
	var buf logbuf.Buffer
	s := startServerLog(t, src, Config{MaxDropShare: 1, AllowedClients: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/16")},
		Routers: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}, zerolog.New(&buf))
	wait.True(t, "the first set", 20*time.Second, func() bool { return s.Status().Ready })
	start := time.Now()
	for i := range 2400 {
		from := fmt.Sprintf("127.0.%d.%d", 2+i/250, 1+i%250) // allowed
		if i%2 == 1 {
			from = fmt.Sprintf("127.1.%d.%d", i/250, 1+i%250) // outside AllowedClients
		}
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		conn, err := d.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
	router := dialFrom(t, s, "127.0.0.1")
	router.reset()
	router.conn.Close()
	wait.True(t, "every session closed", 20*time.Second, func() bool { return len(s.Status().Clients) == 0 })
	elapsed := time.Since(start)
	var lines, routerLines int
	for _, l := range strings.Split(buf.String(), "\n") {
		switch {
		case strings.Contains(l, `"client":"127.0.0.1:`):
			routerLines++
		case strings.Contains(l, `"client":"127.`):
			lines++
		}
	}
	t.Logf("2,400 probes in %s: %d log lines about them; %d about the router", elapsed.Round(time.Millisecond), lines, routerLines)
	if most := logBurst + int(elapsed/logEvery) + 1; lines > most {
		t.Errorf("%d lines about probes in %s, want at most %d", lines, elapsed, most)
	}
	if routerLines != 2 {
		t.Errorf("%d lines about the router, want its session opened and closed", routerLines)
	}
}
