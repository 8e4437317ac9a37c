package validator

import "time"

// InventoryStatus says whether the cluster inventory can be trusted: Synced
// once the first listing is in, Available while the API server answers (else
// Reason says why, since Since). kube/ reports it; the monitoring loop
// freezes while the inventory is unavailable, and the RTR server never
// shrinks its set then.
type InventoryStatus struct {
	Synced    bool      `json:"synced"`
	Available bool      `json:"available"`
	Reason    string    `json:"reason,omitempty"`
	Since     time.Time `json:"since"`
}
