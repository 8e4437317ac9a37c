package kube

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/validator"
)

// Resources routewarden watches. All are read-only: get, list, watch.
var (
	gvrNodes       = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	gvrConfigMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	gvrCiliumNodes = schema.GroupVersionResource{Group: "cilium.io", Version: "v2", Resource: "ciliumnodes"}
	// The pool CRDs, newest version first: one version of each is watched
	// (CiliumLoadBalancerIPPool is cilium.io/v2 from Cilium 1.18, v2alpha1 before).
	podIPPoolVersions = []schema.GroupVersionResource{
		{Group: "cilium.io", Version: "v2alpha1", Resource: "ciliumpodippools"},
	}
	lbIPPoolVersions = []schema.GroupVersionResource{
		{Group: "cilium.io", Version: "v2", Resource: "ciliumloadbalancerippools"},
		{Group: "cilium.io", Version: "v2alpha1", Resource: "ciliumloadbalancerippools"},
	}
)

// InventoryOptions configure the inventory.
type InventoryOptions struct {
	Cluster cilium.ClusterOptions
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
	objects    map[schema.GroupVersionResource]map[string]*decodedObject // the live set's
	tombstones []validator.DeletedNode
	status     Status
	stopping   <-chan struct{} // Run's ctx.Done(): a break after it is the shutdown's, not an outage
	version    uint64
	changedAt  time.Time // when version last changed: the event's time
	changed    chan struct{}

	// The informers (informer_set.go): the live set is what the inventory
	// shows; a pending one is listing to replace it.
	gvrs           []schema.GroupVersionResource
	live, pending  *informerSet
	restartAt      time.Time     // no new set before (backoff while sets fail to sync)
	restartBackoff time.Duration // the next wait between starts
	staleFrom      time.Time     // since when the API server answers while the live set is stale
	synced         chan *informerSet
	sets           sync.WaitGroup

	// poolGVRs are the pool resources watched (the versions the API server serves).
	poolGVRs []schema.GroupVersionResource
	// vipGVRs are the Service, EndpointSlice and BGP resources watched (vip_informers.go).
	vipGVRs []schema.GroupVersionResource

	// built is Cluster's last translation of the objects (without tombstones),
	// valid while version and the watched resources are those it was built at.
	built *builtCluster
	// releaseDue: a promoted set's first translation is to be followed by
	// returning the memory its lists needed (informer_set.go), by release.
	releaseDue bool
	release    func()
}

// builtCluster is a cached translation of the inventory's objects.
type builtCluster struct {
	version uint64
	gvrs    []schema.GroupVersionResource
	cluster *validator.Cluster
}

// NewInventory connects to the API server described by cfg.
func NewInventory(cfg *rest.Config, opts InventoryOptions, log zerolog.Logger, reg prometheus.Registerer) (*Inventory, error) {
	cfg = withWarningLog(cfg, log)
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
		objects: map[schema.GroupVersionResource]map[string]*decodedObject{},
		release: freeOSMemory, changed: make(chan struct{}, 1), synced: make(chan *informerSet, 1), status: Status{Reason: "informers not synced yet", Since: time.Now()}}
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
	i.changedAt = time.Now()
	select {
	case i.changed <- struct{}{}:
	default:
	}
}

// Cluster translates the current objects into the validator's model. The
// translation (of every object's decoding, made when it arrived) is done once per
// version: while nothing changed, callers get a shallow copy of the cached
// one, with the tombstones (which expire by time alone) freshly listed. The
// slices other than Deleted are shared between callers, who must not modify
// them (the validator only reads them).
func (i *Inventory) Cluster(now time.Time) (*validator.Cluster, uint64, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.pruneTombstonesLocked(now)
	gvrs := i.clusterResourcesLocked()
	if b := i.built; b == nil || b.version != i.version || !slices.Equal(b.gvrs, gvrs) {
		c, err := i.buildClusterLocked(gvrs)
		if err != nil {
			i.built = nil
			return nil, i.version, err
		}
		i.built = &builtCluster{version: i.version, gvrs: gvrs, cluster: c}
		i.releaseIfDueLocked()
	}
	c := *i.built.cluster
	c.Deleted = append([]validator.DeletedNode(nil), i.tombstones...)
	c.ChangedAt = i.changedAt
	return &c, i.version, nil
}

// buildClusterLocked translates the objects of the resources gvrs.
func (i *Inventory) buildClusterLocked(gvrs []schema.GroupVersionResource) (*validator.Cluster, error) {
	objs := &cilium.Objects{}
	for _, gvr := range gvrs {
		for name, d := range i.objects[gvr] {
			if d.err != nil {
				i.log.Warn().Err(d.err).Str("object", gvr.Resource+"/"+name).Msg("ignoring an object routewarden cannot read")
				i.metrics.badObjects.Inc()
				continue
			}
			objs.Add(d.objs) // decoded once, by the informer's transform
		}
	}
	// The Services informer runs once Run has started: no Service means none.
	objs.ServicesRead = objs.ServicesRead || len(i.vipGVRs) > 0
	opts := i.opts.Cluster
	opts.BadAdvertisement = func(err error) { // as an unreadable object: reported, counted, not judged
		i.log.Warn().Err(err).Msg("not judging the prefixes of a CiliumBGPAdvertisement routewarden cannot read")
		i.metrics.badObjects.Inc()
	}
	c, err := objs.Cluster(opts)
	if err != nil {
		return nil, err
	}
	c.Deleted = nil
	return c, nil
}
