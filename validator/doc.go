// Package validator is routewarden's pure core: it compares the routes the
// network received (Route) with what the cluster allocated (Cluster) and
// returns sorted, deterministic findings.
//
// The package is pure: it imports no BGP, Kubernetes, HTTP or logging code and
// reads no clock (the time comes in as Options.Now). The bgp/ and kube/
// packages translate their inputs into this package's models at the edges;
// alert/ and cmd/ turn findings into alerts, metrics and output.
//
// Every rule lives in a file of its own (stale_route.go, foreign_cidr.go, …) and
// implements Rule. Rules read a prepared Snapshot, which indexes the cluster once
// per validation: node addresses, allocated CIDRs in a sorted table, pod ranges.
//
// Validate (validate.go) checks everything at once. An Engine (incremental.go) holds a
// validation and takes route events (AddRoute, WithdrawRoute, Sync), re-checking
// only what an event can change; a rule says what that is by implementing
// RouteRule, PrefixRule or NodeRule (rule_incremental.go), and a rule that
// implements none is re-run in full on every event.
//
// The indexes that know nothing of this package's types (address and prefix
// maps, sorted prefix keys) are in validator/index. The loop that keeps an
// Engine between validations, with the clock, the timers, hold-down and
// warm-up, is monitor/; the cluster inventory's health reaches it, and the
// RTR server, as an InventoryStatus.
package validator
