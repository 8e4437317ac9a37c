package kube

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/routewarden/routewarden/validator"
)

// Connection says how to reach the API server: a kubeconfig file and context,
// or (both empty) the in-cluster service account.
type Connection struct {
	Kubeconfig string
	Context    string
}

func (c Connection) restConfig() (*rest.Config, error) {
	if c.Kubeconfig == "" && c.Context == "" {
		if cfg, err := rest.InClusterConfig(); err == nil {
			return cfg, nil
		}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if c.Kubeconfig != "" {
		rules.ExplicitPath = c.Kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: c.Context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the Kubernetes client config (kubeconfig %q, context %q): %w",
			c.Kubeconfig, c.Context, err)
	}
	cfg.UserAgent = "routewarden"
	return cfg, nil
}

// Connect builds an inventory for the cluster the connection names.
func Connect(conn Connection, opts InventoryOptions, log zerolog.Logger, reg prometheus.Registerer) (*Inventory, error) {
	cfg, err := conn.restConfig()
	if err != nil {
		return nil, err
	}
	return NewInventory(cfg, opts, log, reg)
}

// InventoryStatus adapts Status for the monitoring loop and the RTR server.
func (i *Inventory) InventoryStatus() validator.InventoryStatus {
	s := i.Status()
	return validator.InventoryStatus{Synced: s.Synced, Available: s.Available, Reason: s.Reason, Since: s.Since}
}
