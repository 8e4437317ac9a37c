package cli

import (
	"sync"
	"time"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// withPolicyDrops is the cluster the validation loop judges: the cluster's
// truth plus the paths the ToRs' policy dropped (the BGP store's BMP pre-
// against post-policy views), which the rule filtered-at-tor reads, and the
// pre-policy paths the rules do not judge otherwise (sent), which
// attribute-mismatch reads. Its version changes when any of them changes, so
// that the loop's engine is rebuilt then, and only then.
type withPolicyDrops struct {
	monitor.ClusterSource
	drops func() ([]validator.PolicyDrop, uint64)
	sent  func() ([]validator.Route, uint64)

	mu                              sync.Mutex
	kube, dropsVersion, sentVersion uint64
	version                         uint64
	seen                            bool
}

func (c *withPolicyDrops) Cluster(now time.Time) (*validator.Cluster, uint64, error) {
	cl, v, err := c.ClusterSource.Cluster(now)
	if err != nil {
		return cl, v, err
	}
	drops, dv := c.drops()
	var sent []validator.Route
	var sv uint64
	if c.sent != nil {
		sent, sv = c.sent()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen || v != c.kube || dv != c.dropsVersion || sv != c.sentVersion {
		c.seen, c.kube, c.dropsVersion, c.sentVersion = true, v, dv, sv
		c.version++
	}
	if len(drops) == 0 && len(sent) == 0 {
		return cl, c.version, nil
	}
	out := *cl // the source's cluster is shared: not changed in place
	out.PolicyDrops, out.PrePolicy = drops, sent
	return &out, c.version, nil
}
