package main

import (
	"sync"
	"time"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// withPolicyDrops is the cluster the validation loop judges: the cluster's
// truth plus the paths the ToRs' policy dropped (the BGP store's BMP pre-
// against post-policy views), which the rule filtered-at-tor reads. Its
// version changes when either changes, so that the loop's engine is rebuilt
// then, and only then.
type withPolicyDrops struct {
	monitor.ClusterSource
	drops func() ([]validator.PolicyDrop, uint64)

	mu                 sync.Mutex
	kube, dropsVersion uint64
	version            uint64
	seen               bool
}

func (c *withPolicyDrops) Cluster(now time.Time) (*validator.Cluster, uint64, error) {
	cl, v, err := c.ClusterSource.Cluster(now)
	if err != nil {
		return cl, v, err
	}
	drops, dv := c.drops()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen || v != c.kube || dv != c.dropsVersion {
		c.seen, c.kube, c.dropsVersion = true, v, dv
		c.version++
	}
	if len(drops) == 0 {
		return cl, c.version, nil
	}
	out := *cl // the source's cluster is shared: not changed in place
	out.PolicyDrops = drops
	return &out, c.version, nil
}
