package cli

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/config"
)

// reloader re-reads the config file on SIGHUP or when its content changes,
// and applies what can change live: rules, ranges, scope and hold-down (the
// validation), neighbors and dynamic ranges (BGP, by diff: unaffected sessions
// stay up). An invalid file is refused with every problem and the running
// config stays; sections that need a restart (kubernetes, alerting, http, log,
// bgp.bmp, rtr, cluster IPAM) are reported, not applied.
type reloader struct {
	path    string
	current *config.Config
	p       *pipeline
	log     zerolog.Logger
	signals <-chan struct{}
	poll    time.Duration
}

func (r *reloader) Run(ctx context.Context) error {
	last, _ := os.ReadFile(r.path)
	tick := time.NewTicker(r.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.signals:
		case <-tick.C:
			// Kubernetes updates a mounted ConfigMap by swapping a symlink: compare content.
			data, err := os.ReadFile(r.path)
			if err != nil || bytes.Equal(data, last) {
				continue
			}
		}
		last, _ = os.ReadFile(r.path)
		r.reload(ctx)
	}
}

func (r *reloader) reload(ctx context.Context) {
	next, problems, err := config.Load(r.path, config.ForRun)
	if err == nil && len(problems) > 0 {
		err = problems
	}
	if err != nil {
		r.log.Error().Err(err).Str("file", r.path).Msg("config reload refused; the running config stays")
		return
	}
	bcfg, err := bgpConfig(next.BGP)
	if err == nil {
		err = r.p.collector.Reconfigure(ctx, bcfg)
	}
	if err != nil {
		// GoBGP may fail after some neighbors or ranges changed: those stay changed.
		r.log.Error().Err(err).Str("file", r.path).
			Msg("config reload refused; the running config stays, with any BGP change made before the error")
		return
	}
	r.p.loop.SetOptions(next.ValidatorOptions(), next.Validation.HoldDown)
	r.p.loop.SetConvergence(next.ConvergenceBudgets())
	for name, pair := range map[string][2]any{
		"kubernetes": {r.current.Kubernetes, next.Kubernetes}, "alerting": {r.current.Alerting, next.Alerting},
		"http": {r.current.HTTP, next.HTTP}, "log": {r.current.Log, next.Log}, "bgp.bmp": {r.current.BGP.BMP, next.BGP.BMP},
		"rtr": {r.current.RTR, next.RTR},
		"cluster.ipamMode/podRanges": {[]any{r.current.Cluster.IPAMMode, r.current.Cluster.PodRanges},
			[]any{next.Cluster.IPAMMode, next.Cluster.PodRanges}},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			r.log.Warn().Str("section", name).Msg("this part of the config only changes with a restart; not applied")
		}
	}
	r.current = next
	r.log.Info().Str("file", r.path).Msg("config reloaded")
}
