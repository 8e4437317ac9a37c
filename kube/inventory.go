package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/routewarden/routewarden/validator"
)

// Resources routewarden watches. All are read-only: get, list, watch.
var (
	gvrNodes       = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	gvrConfigMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	gvrCiliumNodes = schema.GroupVersionResource{Group: "cilium.io", Version: "v2", Resource: "ciliumnodes"}
	gvrPodIPPools  = schema.GroupVersionResource{Group: "cilium.io", Version: "v2alpha1", Resource: "ciliumpodippools"}
	gvrLBIPPools   = schema.GroupVersionResource{Group: "cilium.io", Version: "v2", Resource: "ciliumloadbalancerippools"}
)

// InventoryOptions configure the inventory.
type InventoryOptions struct {
	Cluster ClusterOptions
	// TombstoneTTL is how long deleted nodes are remembered.
	TombstoneTTL time.Duration
	// ProbeInterval is how often the API server's health is checked.
	ProbeInterval time.Duration
}

// Status tells whether the inventory can be trusted.
type Status struct {
	Synced    bool      `json:"synced"`
	Available bool      `json:"available"`
	Reason    string    `json:"reason,omitempty"`
	Since     time.Time `json:"since"`
	Degraded  []string  `json:"degraded,omitempty"`
}

// Inventory is the cluster's truth, kept current by informers.
type Inventory struct {
	opts    InventoryOptions
	log     zerolog.Logger
	dyn     dynamic.Interface
	disc    discovery.DiscoveryInterface
	metrics *inventoryMetrics

	mu         sync.RWMutex
	objects    map[schema.GroupVersionResource]map[string]*unstructured.Unstructured
	tombstones []validator.DeletedNode
	status     Status
	version    uint64
	changed    chan struct{}
}

// NewInventory connects to the API server described by cfg.
func NewInventory(cfg *rest.Config, opts InventoryOptions, log zerolog.Logger, reg prometheus.Registerer) (*Inventory, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes client: %w", err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes discovery client: %w", err)
	}
	if opts.TombstoneTTL == 0 {
		opts.TombstoneTTL = time.Hour
	}
	if opts.ProbeInterval == 0 {
		opts.ProbeInterval = 5 * time.Second
	}
	inv := &Inventory{opts: opts, log: log.With().Str("component", "kube").Logger(), dyn: dyn, disc: disc,
		objects: map[schema.GroupVersionResource]map[string]*unstructured.Unstructured{},
		changed: make(chan struct{}, 1), status: Status{Reason: "informers not synced yet", Since: time.Now()}}
	if inv.metrics, err = newInventoryMetrics(reg, inv); err != nil {
		return nil, err
	}
	return inv, nil
}

// Changed receives a value after changes (coalesced).
func (i *Inventory) Changed() <-chan struct{} { return i.changed }

// Status returns whether the inventory is synced and the API server reachable.
func (i *Inventory) Status() Status {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.status
}

func (i *Inventory) bumpLocked() {
	i.version++
	select {
	case i.changed <- struct{}{}:
	default:
	}
}

// Cluster translates the current objects into the validator's model.
func (i *Inventory) Cluster(now time.Time) (*validator.Cluster, uint64, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.pruneTombstonesLocked(now)
	objs := &Objects{}
	for _, gvr := range []schema.GroupVersionResource{gvrNodes, gvrCiliumNodes, gvrPodIPPools, gvrLBIPPools, gvrConfigMaps} {
		for name, u := range i.objects[gvr] {
			data, err := json.Marshal(u.Object)
			if err == nil {
				err = objs.Decode(gvr.Resource+"/"+name, data)
			}
			if err != nil {
				i.log.Warn().Err(err).Str("object", gvr.Resource+"/"+name).Msg("ignoring an object routewarden cannot read")
				i.metrics.badObjects.Inc()
			}
		}
	}
	c, err := objs.Cluster(i.opts.Cluster)
	if err != nil {
		return nil, i.version, err
	}
	c.Deleted = append([]validator.DeletedNode(nil), i.tombstones...)
	return c, i.version, nil
}

func (i *Inventory) setStatus(available bool, reason string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.status.Available == available && i.status.Reason == reason {
		return
	}
	if i.status.Available != available {
		i.status.Since = time.Now()
		ev := i.log.Info()
		if !available {
			ev = i.log.Warn()
		}
		ev.Bool("available", available).Str("reason", reason).Msg("cluster inventory")
	}
	i.status.Available, i.status.Reason = available, reason
	i.bumpLocked()
}

// Run checks the CRDs, starts the informers and probes the API server until ctx ends.
func (i *Inventory) Run(ctx context.Context) error {
	gvrs, err := i.resources()
	if err != nil {
		return err
	}
	synced := i.startInformers(ctx, gvrs)
	tick := time.NewTicker(i.opts.ProbeInterval)
	defer tick.Stop()
	for {
		i.probe(ctx, synced())
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// probe asks the API server whether it is ready; the inventory is available
// when the informers have synced and the last probe succeeded.
func (i *Inventory) probe(ctx context.Context, synced bool) {
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	body, err := i.disc.RESTClient().Get().AbsPath("/readyz").DoRaw(pctx)
	switch {
	case ctx.Err() != nil:
	case err != nil:
		i.setStatus(false, fmt.Sprintf("the Kubernetes API server is unreachable: %v", err))
	case string(body) != "ok":
		i.setStatus(false, "the Kubernetes API server is not ready")
	case !synced:
		i.setStatus(false, "informers not synced yet")
	default:
		i.mu.Lock()
		i.status.Synced = true
		i.mu.Unlock()
		i.setStatus(true, "")
	}
}
