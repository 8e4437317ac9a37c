package kube

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/routewarden/routewarden/internal/promreg"
)

type inventoryMetrics struct {
	inv         *Inventory
	watchErrors *prometheus.CounterVec
	lists       *prometheus.CounterVec
	badObjects  prometheus.Counter
	// informerStarts counts sets of informers started (informer_set.go).
	informerStarts prometheus.Counter
	available      *prometheus.Desc
	synced         *prometheus.Desc
	objects        *prometheus.Desc
}

func newInventoryMetrics(reg prometheus.Registerer, inv *Inventory) (*inventoryMetrics, error) {
	m := &inventoryMetrics{inv: inv,
		watchErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_inventory_watch_errors_total",
			Help: "Times a Kubernetes watch broke (the API server unreachable, a watch ended with an error, a relist), and first lists that failed, by resource."},
			[]string{"resource"}),
		lists: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_inventory_lists_total",
			Help: "List requests of a Kubernetes resource (continuation pages not counted): one per resource at start, then one per relist."},
			[]string{"resource"}),
		badObjects: prometheus.NewCounter(prometheus.CounterOpts{Name: "routewarden_inventory_unreadable_objects_total",
			Help: "Kubernetes objects that could not be read and were left out."}),
		informerStarts: prometheus.NewCounter(prometheus.CounterOpts{Name: "routewarden_inventory_informer_starts_total",
			Help: "Times a set of informers was started: once at start, then when watches did not resume after an outage."}),
		available: prometheus.NewDesc("routewarden_inventory_available",
			"1 while the Kubernetes API is reachable, the informers have synced and every watch is current.", nil, nil),
		synced: prometheus.NewDesc("routewarden_inventory_synced",
			"1 once the informers have synced for the first time.", nil, nil),
		objects: prometheus.NewDesc("routewarden_inventory_objects",
			"Objects in the inventory, by resource.", []string{"resource"}, nil),
	}
	if err := promreg.Register(reg, "inventory", m.watchErrors, m.lists, m.badObjects, m.informerStarts, m); err != nil {
		return nil, err
	}
	return m, nil
}

// Describe implements prometheus.Collector.
func (m *inventoryMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.available
	ch <- m.synced
	ch <- m.objects
}

// Collect implements prometheus.Collector.
func (m *inventoryMetrics) Collect(ch chan<- prometheus.Metric) {
	st := m.inv.Status()
	ch <- prometheus.MustNewConstMetric(m.available, prometheus.GaugeValue, boolFloat(st.Available))
	ch <- prometheus.MustNewConstMetric(m.synced, prometheus.GaugeValue, boolFloat(st.Synced))
	m.inv.mu.RLock()
	defer m.inv.mu.RUnlock()
	for gvr, objs := range m.inv.objects {
		ch <- prometheus.MustNewConstMetric(m.objects, prometheus.GaugeValue, float64(len(objs)), gvr.Resource)
	}
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
