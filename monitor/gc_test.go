package monitor

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestWithGCDeferred: no collection runs while f allocates less than the
// headroom, and GOGC and GOMEMLIMIT are what they were afterwards.
func TestWithGCDeferred(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
	var before, after runtime.MemStats
	var sink [][]byte
	runtime.GC() // none marking on entry: one would finish during f
	withGCDeferred(512<<20, 0, func() {
		runtime.ReadMemStats(&before)
		for range 64 { // 64 MB: at GOGC 150 over this test's small heap, several collections
			sink = append(sink, make([]byte, 1<<20))
		}
		runtime.ReadMemStats(&after)
	})
	runtime.KeepAlive(sink)
	if after.NumGC != before.NumGC {
		t.Errorf("%d collections ran during the deferral", after.NumGC-before.NumGC)
	}
	if p := debug.SetGCPercent(150); p != 150 {
		t.Errorf("GOGC is %d afterwards, want 150", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 1<<40 {
		t.Errorf("GOMEMLIMIT is %d afterwards, want %d", l, int64(1<<40))
	}
}

// TestWithGCDeferredKeepsTheLimit: past the headroom the collector runs.
func TestWithGCDeferredKeepsTheLimit(t *testing.T) {
	var before, after runtime.MemStats
	var sink [][]byte
	withGCDeferred(16<<20, 0, func() {
		runtime.ReadMemStats(&before)
		for range 256 { // 256 MB, mostly garbage
			sink = append(sink[:min(len(sink), 8)], make([]byte, 1<<20))
		}
		runtime.ReadMemStats(&after)
	})
	runtime.KeepAlive(sink)
	if after.NumGC == before.NumGC {
		t.Errorf("no collection while 256 MB were allocated with 16 MB of headroom")
	}
}

// TestWithGCDeferredLiveRoom: a small headroom over a heap without garbage
// still leaves room above the live heap: no collection runs for what fits.
func TestWithGCDeferredLiveRoom(t *testing.T) {
	var before, after runtime.MemStats
	var sink [][]byte
	runtime.GC() // the heap is all live, and none is marking on entry
	withGCDeferred(1<<20, 512<<20, func() {
		runtime.ReadMemStats(&before)
		for range 64 { // 64 MB kept: past the headroom, well within the room
			sink = append(sink, make([]byte, 1<<20))
		}
		runtime.ReadMemStats(&after)
	})
	runtime.KeepAlive(sink)
	if after.NumGC != before.NumGC {
		t.Errorf("%d collections ran with 512 MB of room above the live heap", after.NumGC-before.NumGC)
	}
}
