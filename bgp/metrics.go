package bgp

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/internal/promreg"
)

// metrics exposes the collector's peers and paths; peer gauges are read from
// the store at scrape time.
type metrics struct {
	store        *rib.Store
	decodeErrors prometheus.Counter
	// Protocol errors GoBGP reports only in its log (errorlog.go).
	updateErrors  *prometheus.CounterVec
	notifications *prometheus.CounterVec
	prefixLimit   *prometheus.CounterVec
	// Paths the route feed received, and those it left out, by reason (feed_drops.go).
	pathsReceived *prometheus.CounterVec
	pathsDropped  *prometheus.CounterVec
	sent          sentOnce
	peerUp        *prometheus.Desc
	peerRoutes    *prometheus.Desc
}

func newMetrics(reg prometheus.Registerer, store *rib.Store) (*metrics, error) {
	m := &metrics{
		store: store,
		decodeErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "routewarden_bgp_path_decode_errors_total",
			Help: "Received BGP paths that could not be decoded and were ignored."}),
		updateErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_bgp_update_errors_total",
			Help: "Malformed UPDATEs received, by the RFC 7606 action taken: treat-as-withdraw, attribute-discard " +
				"or session-reset."}, []string{"peer", "action"}),
		notifications: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_bgp_notifications_total",
			Help: "BGP NOTIFICATIONs sent to or received from a peer, by error code and subcode."},
			[]string{"peer", "direction", "code", "subcode"}),
		prefixLimit: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_bgp_prefix_limit_exceeded_total",
			Help: "Sessions cut off because the peer announced more prefixes than its maxPrefixes."},
			[]string{"peer"}),
		pathsReceived: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_bgp_paths_received_total",
			Help: "Paths announced in the UPDATEs a peer sent (GoBGP took them)."}, []string{"peer"}),
		pathsDropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_bgp_paths_dropped_total",
			Help: "Paths a peer sent that were left out of the RIB, by reason: treat-as-withdraw (RFC 7606, as " +
				"GoBGP did), as-loop, malformed, outside-session, other-family."}, []string{"peer", "reason"}),
		peerUp: prometheus.NewDesc("routewarden_bgp_peer_up",
			"1 while the BGP session with the peer is established, else 0.", []string{"peer", "state"}, nil),
		peerRoutes: prometheus.NewDesc("routewarden_bgp_peer_routes",
			"Paths held from the peer (including graceful-restart stale ones).", []string{"peer"}, nil),
	}
	if err := promreg.Register(reg, "BGP", m.decodeErrors, m.updateErrors, m.notifications, m.prefixLimit,
		m.pathsReceived, m.pathsDropped, m); err != nil {
		return nil, err
	}
	return m, nil
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.peerUp
	ch <- m.peerRoutes
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	for _, p := range m.store.Peers() {
		up := 0.0
		if p.State == "established" {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(m.peerUp, prometheus.GaugeValue, up, p.Address.String(), p.State)
		ch <- prometheus.MustNewConstMetric(m.peerRoutes, prometheus.GaugeValue, float64(p.Routes), p.Address.String())
	}
}
