package cli

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/rtr"
)

// newRTR builds the RTR server when rtr.enabled is set (nil otherwise) and
// binds its port, so that a port in use surfaces before anything starts.
func newRTR(cfg *config.Config, cluster rtr.Source, log zerolog.Logger, reg prometheus.Registerer) (*rtr.Server, error) {
	c := cfg.RTR
	if !c.Enabled {
		return nil, nil
	}
	s, err := rtr.New(rtr.Config{Listen: c.Listen, AllowedClients: c.ClientPrefixes(), Refresh: c.Refresh, Retry: c.Retry,
		Expire: c.Expire, MaxDropShare: c.MaxDropShare, HoldDrop: c.HoldDrop, MaxSessions: c.MaxSessions,
		Routers: c.RouterPrefixes(), ROA: roaOptions(cfg)}, cluster, log, reg)
	if err != nil {
		return nil, err
	}
	if err := s.Listen(); err != nil {
		return nil, err
	}
	if len(c.AllowedClients) == 0 {
		log.Warn().Str("listen", c.Listen).Msg("rtr.allowedClients is empty: any host that reaches the RTR port " +
			"can read the cluster's allocations; list your routers' ranges")
	}
	if len(c.Routers) == 0 {
		log.Warn().Msg("rtr.routers is empty: the ToRs share rtr.maxSessions with every other client; " +
			"list their addresses so they are always served")
	}
	return s, nil
}

// rtrPoke has the RTR server look at the inventory after every validation
// (which follows every change of it), besides its own polling.
type rtrPoke struct{ s *rtr.Server }

func (p rtrPoke) Observe(monitor.State, []monitor.Transition) { p.s.Poke() }

// rtrStatus is /api/v1/roas: nil (404) while the RTR server is off.
func (p *pipeline) rtrStatus() any {
	if p.rtr == nil {
		return nil
	}
	return p.rtr.Status()
}
