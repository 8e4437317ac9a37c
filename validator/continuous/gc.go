package continuous

import (
	"runtime/debug"
	"runtime/metrics"
)

// Deferring garbage collection through a large validation (Options.DeferGC).
//
// A validation of a large table allocates in one burst: the routes handed
// over by the store (~170 B a route) and, when the engine is rebuilt (the
// first verdict, a cluster change), its indexes (~250 B a route). Most of
// that stays live. With the default pacing the burst starts a collection of
// the whole heap, in a collector process mostly GoBGP's Adj-RIB-In: millions
// of small pointer-rich objects, seconds of marking on a small machine, which
// the validation then shares the CPUs with. Measured at a million routes on
// two cores: the first verdict took 3.7-4.7 s with that collection running
// beside it and 1.9 s without, for the same peak RSS (the engine is live
// either way; the collection starts right after).
//
// So a validation of a table of at least deferGCMin routes runs with the
// collector held back (GOGC raised out of reach) until the process has grown
// by gcHeadroomPerRoute a route (a memory limit set for the duration, so
// garbage from elsewhere, GoBGP receiving another peer's table, still gets
// collected past it).
// The previous settings (GOGC, GOMEMLIMIT) come back when it returns, and a
// memory limit already set (the Helm chart sets GOMEMLIMIT to the container's
// memory limit) is never raised: near it the collector runs as before.
const (
	deferGCMin         = 100_000
	gcHeadroomPerRoute = 1024
	deferredGCPercent  = 100_000 // a goal far past the memory limit, which then decides
)

// withGCDeferred runs f with garbage collection deferred until the Go
// runtime holds headroom bytes more than now.
func withGCDeferred(headroom uint64, f func()) {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(sample)
	inUse := sample[0].Value.Uint64() - sample[1].Value.Uint64()
	limit := debug.SetMemoryLimit(-1) // -1 reads it
	debug.SetMemoryLimit(min(limit, int64(min(inUse+headroom, 1<<62))))
	// GOGC is raised out of reach rather than turned off: turning it off
	// waits for a collection already marking to finish (0.6 s of a 1M
	// verdict when one had just started), where a raised goal lets that one
	// finish beside f with hardly any assists from f's allocations.
	percent := debug.SetGCPercent(deferredGCPercent)
	defer func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}()
	f()
}
