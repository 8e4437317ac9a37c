package cli

import (
	"strings"
	"time"

	"github.com/routewarden/routewarden/bgp"
	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/httpapi"
	"github.com/routewarden/routewarden/metrics"
	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// apiSources is what the HTTP API and status page read: the validation's
// state, the collector's table and peers, the cluster, the last transitions
// and the URLs findings link to.
func apiSources(cfg *config.Config, loop *monitor.Loop, collector *bgp.Collector, cluster clusterSource,
	validation *metrics.Observer) httpapi.Sources {
	links := httpapi.Links{Cluster: cfg.Cluster.Name, RunbookBase: cfg.Alerting.RunbookBase}
	if ams := cfg.Alerting.Alertmanagers; len(ams) > 0 {
		links.Alertmanager = strings.TrimSuffix(strings.TrimSuffix(ams[0].URL, "/"), "/api/v2")
	}
	return httpapi.Sources{
		State:  loop.State,
		Routes: func() []validator.Route { rs, _ := collector.Store().Routes(); return rs },
		RouteViews: func(view string) []httpapi.RouteView {
			var out []httpapi.RouteView
			for _, p := range collector.Store().ViewPaths(view) {
				out = append(out, httpapi.RouteView{Router: p.Router, View: p.View, Route: p.Route})
			}
			return out
		},
		Peers: func() []httpapi.Peer {
			var out []httpapi.Peer
			for _, p := range append(collector.Store().Peers(), collector.Store().MonitoredPeers()...) {
				out = append(out, apiPeer(p))
			}
			return out
		},
		Cluster: func() (*validator.Cluster, error) {
			c, _, err := cluster.Cluster(time.Now())
			return c, err
		},
		Transitions: validation.Transitions,
		Convergence: loop.Convergence,
		Links:       links,
		Ready: func() (bool, string) {
			if st := cluster.InventoryStatus(); !st.Available {
				return false, st.Reason
			}
			return true, ""
		},
	}
}

func apiPeer(p rib.PeerInfo) httpapi.Peer {
	out := httpapi.Peer{Address: p.Address, ASN: p.ASN, RouterID: p.RouterID, State: p.State, Dynamic: p.Dynamic,
		Since: p.Since, Routes: p.Routes, EndOfRIB: p.EndOfRIB, Families: p.Families, RestartTime: p.RestartTime,
		StaleUntil: p.StaleUntil, Received: p.Paths.Received, Dropped: p.Paths.Dropped}
	if b := p.BMP; b != nil {
		out.BMP = &httpapi.PeerBMP{Router: b.Router, SysName: b.SysName, View: b.View}
	}
	return out
}
