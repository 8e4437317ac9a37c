package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/routewarden/routewarden/alert"
	"github.com/routewarden/routewarden/bgp"
	"github.com/routewarden/routewarden/bgp/bmp"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/httpapi"
	"github.com/routewarden/routewarden/metrics"
	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/rtr"
	"github.com/routewarden/routewarden/validator"
)

// clusterSource is the cluster's truth: the informers (run) or the demo's
// in-memory cluster.
type clusterSource interface {
	monitor.ClusterSource
	Run(ctx context.Context) error
}

// pipeline is routes in + cluster in → validation → alerts, metrics and API.
type pipeline struct {
	collector  *bgp.Collector
	cluster    clusterSource
	loop       *monitor.Loop
	dispatcher *alert.Dispatcher
	http       *httpapi.Server
	reloader   *reloader    // nil without a config file
	bmp        *bmp.Station // nil without bgp.bmp.listen
	rtr        *rtr.Server  // nil unless rtr.enabled
}

// newPipeline builds every component, so that configuration errors surface
// before anything starts.
func newPipeline(cfg *config.Config, cluster clusterSource, extraSinks []alert.Sink, log zerolog.Logger,
	reg *prometheus.Registry, observers ...monitor.Observer) (*pipeline, error) {
	bcfg, err := bgpConfig(cfg.BGP)
	if err != nil {
		return nil, err
	}
	collector, err := bgp.NewCollector(bcfg, log, reg)
	if err != nil {
		return nil, err
	}
	sinks, err := alertSinks(cfg.Alerting)
	if err != nil {
		return nil, err
	}
	sinks = append(sinks, extraSinks...)
	dispatcher, err := alert.NewDispatcher(alert.DispatcherConfig{ResendInterval: cfg.Alerting.ResendInterval}, sinks,
		log.With().Str("component", "alert").Logger(), reg)
	if err != nil {
		return nil, err
	}
	validation, err := metrics.NewObserver(reg, log)
	if err != nil {
		return nil, err
	}
	p := &pipeline{collector: collector, cluster: cluster, dispatcher: dispatcher}
	external := strings.TrimSuffix(cfg.Alerting.ExternalURL, "/")
	publisher := alert.NewPublisher(dispatcher, alert.FindingOptions{Cluster: cfg.Cluster.Name,
		RunbookBase: cfg.Alerting.RunbookBase}, func(f validator.Finding) string {
		base := external
		if base == "" && p.http != nil {
			base = "http://" + p.http.Addr()
		}
		return httpapi.FindingURL(base, f)
	})
	if p.rtr, err = newRTR(cfg, cluster, log, reg); err != nil {
		return nil, err
	}
	if p.rtr != nil {
		observers = append(observers, rtrPoke{p.rtr})
	}
	conv, err := metrics.NewConvergence(reg)
	if err != nil {
		return nil, err
	}
	observers = append(observers, conv)
	vopts := cfg.ValidatorOptions()
	// The store is the loop's route source and its policy source (BMP's
	// pre- and post-policy views: monitor.PolicySource).
	p.loop = monitor.New(collector.Store(), cluster, collector, monitor.Options{Validator: vopts,
		HoldDown: cfg.Validation.HoldDown, Debounce: cfg.Validation.Debounce, WarmupTimeout: cfg.Validation.WarmupTimeout,
		DeferGC: true, Convergence: monitor.ConvergenceOptions{Budgets: cfg.ConvergenceBudgets()}},
		append([]monitor.Observer{validation, publisher}, observers...)...)
	src := apiSources(cfg, p.loop, collector, cluster, validation)
	src.RTR = p.rtrStatus
	p.http = httpapi.New(cfg.HTTP.Listen, src, reg, log)
	if err := p.http.Listen(); err != nil {
		return nil, err
	}
	if b := cfg.BGP.BMP; b.Listen != "" {
		st, err := bmp.New(bmp.Config{Listen: b.Listen, AllowedSources: b.Prefixes()}, collector.Store(), log, reg)
		if err != nil {
			return nil, err
		}
		if err := st.Listen(); err != nil {
			return nil, err
		}
		if len(b.AllowedSources) == 0 {
			log.Warn().Str("listen", b.Listen).Msg("bgp.bmp.allowedSources is empty: any host that reaches the " +
				"BMP station can stream routes into the checks; list your routers' and nodes' ranges")
		}
		p.bmp = st
	}
	return p, nil
}

// newRegistry is the metrics registry of one routewarden process.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// run runs every component until ctx ends or one fails.
func (p *pipeline) run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	runs := map[string]func(context.Context) error{
		"bgp": p.collector.Run, "kubernetes": p.cluster.Run, "validation": p.loop.Run,
		"alerting": p.dispatcher.Run, "http": p.http.Run,
	}
	if p.reloader != nil {
		runs["config reload"] = p.reloader.Run
	}
	if p.bmp != nil {
		runs["bmp"] = p.bmp.Run
	}
	if p.rtr != nil {
		runs["rtr"] = p.rtr.Run
	}
	for name, run := range runs {
		g.Go(func() error {
			if err := run(ctx); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return nil
		})
	}
	return g.Wait()
}
