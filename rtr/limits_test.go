package rtr

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/routewarden/routewarden/internal/wait"
)

// TestSessionLimits: what a client that is not a router can cost is bounded.
// Sessions beyond MaxSessions are refused (and counted); a header announcing
// a PDU longer than a router ever sends is an Error Report, not a buffer; a
// PDU whose rest never comes, or a session that never asks, ends at
// PDUTimeout; a client's metric series go with its last session.
func TestSessionLimits(t *testing.T) {
	_, s := serveNodes(t, Config{MaxDropShare: 1, MaxSessions: 2, PDUTimeout: 300 * time.Millisecond}, 1)

	// A header announcing a 64 KiB Reset Query: refused at once, nothing read further.
	big := dial(t, s)
	if _, err := big.conn.Write([]byte{1, TypeResetQuery, 0, 0, 0, 1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if p := big.read(); p.Type != TypeErrorReport || p.ErrCode != ErrCorruptData || !strings.Contains(p.ErrText, "65536") {
		t.Fatalf("got %+v, want a Corrupt Data Error Report for the length", p)
	}
	if !big.closed() {
		t.Fatal("the session stayed open")
	}

	// Two half-sent PDUs take both sessions; a third client is refused.
	half := []*client{dial(t, s), dial(t, s)}
	for _, c := range half {
		if _, err := c.conn.Write([]byte{1, TypeErrorReport, 0, 0, 0, 0, 4, 0}); err != nil {
			t.Fatal(err)
		}
	}
	wait.True(t, "two sessions", 20*time.Second, func() bool { return len(s.Status().Clients) == 2 })
	third := dial(t, s)
	if !third.closed() {
		t.Fatal("a session beyond MaxSessions was served")
	}
	if n := counterValue(s.metrics.refused.WithLabelValues("maxSessions")); n != 1 {
		t.Errorf("refused for maxSessions: %g, want 1", n)
	}
	start := time.Now()
	for _, c := range half {
		if !c.closed() {
			t.Fatal("a half-sent PDU kept its session open")
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("half-sent PDUs closed after %s, want about PDUTimeout", d)
	}

	// A client that connects and never asks is closed too.
	silent := dial(t, s)
	if !silent.closed() {
		t.Fatal("a silent session stayed open")
	}

	// The slots are free again, and a router is served; once it leaves, its series go.
	wait.True(t, "sessions closed", 20*time.Second, func() bool { return len(s.Status().Clients) == 0 })
	good := dial(t, s)
	good.send(PDU{Version: 1, Type: TypeResetQuery})
	if _, a, _ := good.response(); len(a) != 2 {
		t.Fatalf("announced %v, want the pod range and node1's CIDR", a)
	}
	if n := series(s.metrics.queries); n != 1 {
		t.Errorf("%d query series while the router is connected, want 1", n)
	}
	good.conn.Close()
	wait.True(t, "the router's series deleted", 20*time.Second, func() bool {
		return series(s.metrics.connected)+series(s.metrics.queries)+
			series(s.metrics.lastQuery)+series(s.metrics.errors) == 0
	})
}

// series counts the series a collector has.
func series(c prometheus.Collector) int {
	ch := make(chan prometheus.Metric, 1000)
	c.Collect(ch)
	close(ch)
	return len(ch)
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	_ = c.Write(&m)
	return m.GetCounter().GetValue()
}

func gaugeValue(g prometheus.Gauge) float64 {
	var m dto.Metric
	_ = g.Write(&m)
	return m.GetGauge().GetValue()
}
