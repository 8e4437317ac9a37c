// Package monitor is routewarden's monitoring loop: it re-validates whenever
// the routes or the cluster change (debounced, and at least every Resync),
// keeps the incremental validator.Engine from one validation to the next
// (engine_cache.go), and turns successive results into a stable set of
// tracked findings with their lifecycle (lifecycle.go): a finding fires only
// after it persisted for the hold-down, nothing fires during warm-up
// (warmup.go), and while the cluster inventory is unavailable the last known
// state is frozen instead of turning the cache's silence into alerts. It
// times the route changes the cluster asks for (convergence.go, over the pure
// validator/convergence) and may hold the garbage collector back through a
// large validation (gc.go). Observers see the state and the transitions after
// every validation.
//
// The loop is where the clock, the timers and the runtime's GC settings live,
// so that validator/ stays pure. Sources and observers are small interfaces;
// it imports no BGP, Kubernetes, HTTP or logging code.
package monitor
