package bmp

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/bgp/wire"
	"github.com/routewarden/routewarden/internal/promreg"
)

// metrics are the station's counters; per-peer route counts are read from the
// store at scrape time.
type metrics struct {
	store         Store
	sessions      prometheus.Gauge
	messages      *prometheus.CounterVec
	byType        [7]prometheus.Counter
	decodeErrors  prometheus.Counter
	sessionErrors prometheus.Counter
	refused       prometheus.Counter
	ignored       *prometheus.CounterVec
	pathsDropped  *prometheus.CounterVec
	stats         *prometheus.GaugeVec
	peerRoutes    *prometheus.Desc
}

func newMetrics(reg prometheus.Registerer, store Store) (*metrics, error) {
	m := &metrics{
		store: store,
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "routewarden_bmp_sessions",
			Help: "BMP sessions open."}),
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_bmp_messages_total",
			Help: "BMP messages received, by type."}, []string{"type"}),
		decodeErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "routewarden_bmp_decode_errors_total",
			Help: "BMP messages that could not be decoded (a malformed UPDATE is skipped, anything else closes its session)."}),
		sessionErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "routewarden_bmp_session_errors_total",
			Help: "BMP sessions that ended with an error."}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "routewarden_bmp_refused_total",
			Help: "BMP connections refused: the source is outside bgp.bmp.allowedSources."}),
		ignored: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_bmp_ignored_total",
			Help: "BMP messages or routes deliberately ignored, by reason."}, []string{"reason"}),
		pathsDropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_bmp_paths_dropped_total",
			Help: "Paths of monitored peers left out of the RIB, by router, peer and reason (treat-as-withdraw: " +
				"an UPDATE that did not decode, its parsed prefixes withdrawn)."}, []string{"router", "peer", "reason"}),
		stats: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "routewarden_bmp_peer_stat",
			Help: "The last BMP Statistics Report value per monitored peer and statistic."},
			[]string{"router", "peer", "stat"}),
		peerRoutes: prometheus.NewDesc("routewarden_bmp_peer_routes",
			"Paths held from a peer monitored over BMP.", []string{"router", "peer", "view"}, nil),
	}
	for t := range m.byType {
		m.byType[t] = m.messages.WithLabelValues(typeName(uint8(t)))
	}
	if err := promreg.Register(reg, "BMP", m.sessions, m.messages, m.decodeErrors, m.sessionErrors, m.refused, m.ignored, m.pathsDropped, m.stats, m); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *metrics) message(t uint8) {
	if int(t) < len(m.byType) {
		m.byType[t].Inc()
		return
	}
	m.messages.WithLabelValues("unknown").Inc()
}

// ignore counts n routes or messages left out for reason.
func (m *metrics) ignore(reason string, n int) {
	m.ignored.WithLabelValues(reason).Add(float64(n))
}

func (m *metrics) stat(p rib.Peer, name string, v float64) {
	m.stats.WithLabelValues(p.Router.String(), peerLabel(p), name).Set(v)
}

func (m *metrics) forgetPeer(p rib.Peer) {
	m.stats.DeletePartialMatch(prometheus.Labels{"router": p.Router.String(), "peer": peerLabel(p)})
}

func peerLabel(p rib.Peer) string {
	if !p.Address.IsValid() {
		return "loc-rib"
	}
	return p.Address.String()
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) { ch <- m.peerRoutes }

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	seen := map[[3]string]float64{}
	for _, p := range m.store.MonitoredPeers() {
		peer := "loc-rib"
		if p.Address.IsValid() {
			peer = p.Address.String()
		}
		// Peers under several distinguishers add up.
		seen[[3]string{p.BMP.Router.String(), peer, p.BMP.View}] += float64(p.Routes)
	}
	for k, v := range seen {
		ch <- prometheus.MustNewConstMetric(m.peerRoutes, prometheus.GaugeValue, v, k[0], k[1], k[2])
	}
}

var statNames = []string{"rejected", "duplicate-prefix", "duplicate-withdraw", "cluster-list-loop", "as-path-loop",
	"originator-id-loop", "as-confed-loop", "adj-rib-in", "loc-rib", "adj-rib-in-per-afi", "loc-rib-per-afi",
	"withdraw-update", "withdraw-prefix", "duplicate-update", "adj-rib-out-pre", "adj-rib-out-post",
	"adj-rib-out-pre-per-afi", "adj-rib-out-post-per-afi"}

func statName(t uint16) string {
	if int(t) < len(statNames) {
		return statNames[t]
	}
	return "other" // a fixed name: no label values from the router's input
}

// perAFIStatName names a per-AFI/SAFI statistic; only the AFIs routewarden
// knows keep their numbers (SAFI is one byte, so the label set stays bounded).
func perAFIStatName(t, afi uint16, safi uint8) string {
	if afi != wire.AFIIPv4 && afi != wire.AFIIPv6 {
		return statName(t) + "/other"
	}
	return statName(t) + "/" + strconv.Itoa(int(afi)) + "/" + strconv.Itoa(int(safi))
}
