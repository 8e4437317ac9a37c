package bgp

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/gobgplog"
	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/internal/logbuf"
	"github.com/routewarden/routewarden/internal/testprom"
)

// TestCountErrors: each protocol error GoBGP logs (at the level and with the
// fields GoBGP v4.8.0 logs it with, the peer in the Key its per-peer logger
// adds) is counted once, and still logged.
func TestCountErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		msg    string
		level  slog.Level
		fields []any
		series string // metric{labels} that must read 1
	}{
		{"the received Update message was treated as withdraw", slog.LevelWarn, nil,
			`routewarden_bgp_update_errors_total{action="treat-as-withdraw",peer="10.0.0.1"}`},
		{"Some attributes were discarded", slog.LevelWarn, nil,
			`routewarden_bgp_update_errors_total{action="attribute-discard",peer="10.0.0.1"}`},
		{"Session will be reset due to malformed BGP update message", slog.LevelWarn, nil,
			`routewarden_bgp_update_errors_total{action="session-reset",peer="10.0.0.1"}`},
		{"sent notification", slog.LevelInfo, []any{slog.Int("Code", 3), slog.Int("Subcode", 11), slog.Any("Data", []byte{1})},
			`routewarden_bgp_notifications_total{code="3",direction="sent",peer="10.0.0.1",subcode="11"}`},
		{"received notification", slog.LevelInfo, []any{slog.Int("Code", 6), slog.Int("Subcode", 2)},
			`routewarden_bgp_notifications_total{code="6",direction="received",peer="10.0.0.1",subcode="2"}`},
		{"sent notification", slog.LevelInfo, []any{slog.Int("Code", 6), slog.Int("Subcode", 1)},
			`routewarden_bgp_prefix_limit_exceeded_total{peer="10.0.0.1"}`},
	}
	for _, tc := range cases {
		t.Run(tc.msg, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m, err := newMetrics(reg, rib.NewStore())
			if err != nil {
				t.Fatal(err)
			}
			buf := &logbuf.Buffer{}
			l := slog.New(gobgplog.NewHandler(zerolog.New(buf), m.observe)).
				With(slog.String("Topic", "Peer"), slog.String("Key", "10.0.0.1"))
			l.Log(context.Background(), tc.level, tc.msg, tc.fields...)
			// GoBGP logs this for every UPDATE read past the limit, several
			// times a cut-off: only the Cease it sends is counted.
			for range 8 {
				l.Warn("prefix limit reached", slog.String("Family", "ipv4-unicast"))
			}
			l.Debug(tc.msg, tc.fields...) // not counted
			if tc.level == slog.LevelWarn {
				l.Info(tc.msg, tc.fields...) // not a warning: not counted
			}
			got := testprom.Counters(t, reg)
			if got[tc.series] != 1 {
				t.Errorf("%s = %v; all: %v", tc.series, got[tc.series], got)
			}
			if len(got) != 1+len(prefixLimitToo(tc.series)) {
				t.Errorf("other series counted: %v", got)
			}
			if !strings.Contains(buf.String(), tc.msg) || !strings.Contains(buf.String(), `"Key":"10.0.0.1"`) {
				t.Errorf("not logged with its peer: %s", buf.String())
			}
			l.Warn("an error", slog.Any("Error", errors.New("BGP server is not running")))
			if !strings.Contains(buf.String(), `"Error":"BGP server is not running"`) {
				t.Errorf("an error logged without its message: %s", buf.String())
			}
		})
	}
}

// prefixLimitToo lists the notification series a prefix-limit cut-off also counts.
func prefixLimitToo(series string) []string {
	if strings.HasPrefix(series, "routewarden_bgp_prefix_limit_exceeded_total") {
		return []string{"notifications"}
	}
	return nil
}
