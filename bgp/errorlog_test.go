package bgp

import (
	"strings"
	"testing"

	"github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/logbuf"
)

// TestCountErrors: each protocol error GoBGP logs (with the fields GoBGP
// v3.37.0 logs it with) is counted once, and still logged.
func TestCountErrors(t *testing.T) {
	msgErr := bgp.NewMessageError(bgp.BGP_ERROR_UPDATE_MESSAGE_ERROR, bgp.BGP_ERROR_SUB_MALFORMED_AS_PATH, nil, "x")
	cases := []struct {
		msg    string
		fields log.Fields
		series string // metric{labels} that must read 1
	}{
		{"the received Update message was treated as withdraw", log.Fields{"Key": "10.0.0.1"},
			`routewarden_bgp_update_errors_total{action="treat-as-withdraw",peer="10.0.0.1"}`},
		{"Some attributes were discarded", log.Fields{"Key": "10.0.0.1"},
			`routewarden_bgp_update_errors_total{action="attribute-discard",peer="10.0.0.1"}`},
		{"Capability was disabled", log.Fields{"Key": "10.0.0.1"},
			`routewarden_bgp_update_errors_total{action="afi-safi-disable",peer="10.0.0.1"}`},
		{"Session will be reset due to malformed BGP update message", log.Fields{"Key": "10.0.0.1"},
			`routewarden_bgp_update_errors_total{action="session-reset",peer="10.0.0.1"}`},
		{"sent notification", log.Fields{"Key": "10.0.0.2", "Data": msgErr},
			`routewarden_bgp_notifications_total{code="3",direction="sent",peer="10.0.0.2",subcode="11"}`},
		{"received notification", log.Fields{"Key": "10.0.0.2", "Code": uint8(6), "Subcode": uint8(2)},
			`routewarden_bgp_notifications_total{code="6",direction="received",peer="10.0.0.2",subcode="2"}`},
		{"sent notification", log.Fields{"Key": "10.0.0.3", "Code": uint8(6), "Subcode": uint8(1)},
			`routewarden_bgp_prefix_limit_exceeded_total{peer="10.0.0.3"}`},
	}
	for _, tc := range cases {
		t.Run(tc.msg, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m, err := newMetrics(reg, NewStore())
			if err != nil {
				t.Fatal(err)
			}
			buf := &logbuf.Buffer{}
			l := m.countErrors(gobgpLogger{zerolog.New(buf)}, nil)
			l.Warn(tc.msg, tc.fields)
			// GoBGP logs this for every UPDATE read past the limit, several
			// times a cut-off: only the Cease it sends is counted.
			for range 8 {
				l.Warn("prefix limit reached", log.Fields{"Key": "10.0.0.3", "Family": "ipv4-unicast"})
			}
			l.Info(tc.msg, tc.fields) // not a warning: not counted
			got := gathered(t, reg)
			if got[tc.series] != 1 {
				t.Errorf("%s = %v; all: %v", tc.series, got[tc.series], got)
			}
			if len(got) != 1+len(prefixLimitToo(tc.series)) {
				t.Errorf("other series counted: %v", got)
			}
			if !strings.Contains(buf.String(), tc.msg) {
				t.Errorf("not logged: %s", buf.String())
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

// gathered returns every counter series with a non-zero value, as name{labels}.
func gathered(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if m.GetCounter() == nil || m.GetCounter().GetValue() == 0 {
				continue
			}
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
			}
			out[mf.GetName()+"{"+strings.Join(labels, ",")+"}"] = m.GetCounter().GetValue()
		}
	}
	return out
}
