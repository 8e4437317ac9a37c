package monitor

import (
	"time"

	"github.com/routewarden/routewarden/validator"
)

// RouteSource is where routes come from (the BGP collector's store).
type RouteSource interface {
	Routes() ([]validator.Route, uint64)
	Changed() <-chan struct{}
}

// FreshRouteSource is a RouteSource that can hand its routes over: FreshRoutes
// returns what Routes returns, in a new slice on every call, which the loop
// keeps (the validation engine holds it instead of a copy of the table).
// Version returns the version Routes would return, without copying anything:
// while neither it nor the cluster changes, the loop re-uses its last result.
// Len is how many routes Routes would return.
type FreshRouteSource interface {
	RouteSource
	FreshRoutes() ([]validator.Route, uint64)
	Version() uint64
	Len() int
}

// ChangeSource is a FreshRouteSource that can also say what changed since a
// version: the routes changed (as they are now) and gone (identities only),
// with the current version; ok false when it cannot, and the loop copies the
// whole table instead.
type ChangeSource interface {
	Changes(since uint64) (changed, gone []validator.Route, version uint64, ok bool)
}

// PolicySource is a RouteSource that also shows what the ToRs' import policy
// did with the routes (the BGP store: BMP's pre- and post-policy views):
// Policy returns it with a version that changes when it does, and only then.
// The loop judges the routes beside it (validator.PolicyView); a route
// source without it shows none.
type PolicySource interface {
	Policy() (validator.PolicyView, uint64)
}

// ClusterSource is where the cluster's truth comes from (the informers).
type ClusterSource interface {
	Cluster(now time.Time) (*validator.Cluster, uint64, error)
	Changed() <-chan struct{}
	InventoryStatus() validator.InventoryStatus
}

// Warmup reports whether every expected peer has sent End-of-RIB.
type Warmup interface{ WarmedUp() bool }

// Observer is told the state after every validation, with the transitions.
type Observer interface {
	Observe(s State, transitions []Transition)
}
