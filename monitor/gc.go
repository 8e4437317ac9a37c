package monitor

import (
	"runtime/debug"
	"runtime/metrics"
)

// Deferring garbage collection through a large validation (Options.DeferGC).
//
// A validation of a large table allocates in one burst: the routes handed
// over by the store (48 B a route, and its sort keys) and, when the engine is
// rebuilt (the first verdict, a cluster change), its indexes (~170 B a
// route at 1M, measured by BenchmarkValidatePodCIDRs). Most of
// that stays live. With the default pacing the burst starts a collection of
// the whole heap, in a collector process mostly GoBGP's Adj-RIB-In: millions
// of small pointer-rich objects, seconds of marking on a small machine, which
// the validation then shares the CPUs with. Measured at a million routes on
// two cores: the first verdict took 3.7-4.7 s with that collection running
// beside it and 1.9 s without (GoBGP v3, before the engine shrank).
//
// So a validation of a table of at least deferGCMin routes runs with the
// collector held back (GOGC raised out of reach) under a memory limit set for
// the duration: what the runtime holds on entry plus gcHeadroomPerRoute a
// route, but never less than the heap live at the last collection plus
// gcLiveRoomPerRoute a route.
//
// The first term bounds the peak. On entry after the initial table the heap
// holds GoBGP's garbage since its last collection (a few hundred MB at 1M
// routes); with a whole KiB a route of headroom (as before) everything the
// validation allocated came on top, and routewarden's peak RSS was
// 1.09-1.20x gobgpd's. At 128 B a route the collection starts during the
// build, beside it, and the peak stays near what the process held (1.01-1.08x
// in nine trials), for ~0.3 s more to the first verdict (medians, two busy
// cores; hack/bench/notes.md). At 64 B a route it starts a little earlier:
// 1.04-1.07x in three trials on a quiet machine, where 128 B gave 1.07-1.11x
// in the same hour, with no later first verdict (0.84-0.90x gobgpd's time to
// hold the table).
// The second term keeps a build from thrashing the collector when the heap
// holds little garbage (a rebuild right after a collection): the engine and
// the table handed over are ~230 B a route live at 1M, a collection cannot
// free them, and a limit below them would run collection after collection.
// A limit of the process's own is left alone when lower (the Helm chart sets
// GOMEMLIMIT to the container's memory limit); the previous settings (GOGC,
// GOMEMLIMIT) come back when it returns.
const (
	deferGCMin         = 100_000
	gcHeadroomPerRoute = 64
	gcLiveRoomPerRoute = 512
	deferredGCPercent  = 100_000 // a goal far past the memory limit, which then decides
)

// withGCDeferred runs f with garbage collection deferred until the Go
// runtime holds headroom bytes more than now, or more than room bytes above
// the heap live at the last collection, whichever is more.
func withGCDeferred(headroom, room uint64, f func()) {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"},
		{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	inUse := sample[0].Value.Uint64() - sample[1].Value.Uint64()
	live := sample[2].Value.Uint64()
	limit := debug.SetMemoryLimit(-1) // -1 reads it
	want := max(inUse+headroom, live+room)
	debug.SetMemoryLimit(min(limit, int64(min(want, 1<<62))))
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
