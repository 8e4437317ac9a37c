package kube

import "runtime/debug"

// After a set of informers is promoted, what its lists needed is garbage:
// the API server's list bodies, the unstructured objects and the YAML trees
// the transform decoded them from (and, after an outage, the previous set's
// objects). The runtime keeps the heap it grew to for them: its next
// collection is paced on the heap live at the last one, taken while the
// lists were being read, and with informers only trickling in changes that
// collection does not come for a long time, so the process keeps the
// start-up's memory. At 5,000 nodes and 10,000 Services that was most of
// the distance to the bare-informer floor (hack/bench/notes.md, "Cluster
// scale"). So after the first translation of a promoted set, once, the
// inventory collects and returns the free memory to the OS
// (debug.FreeOSMemory: one full collection, in its own goroutine, beside the
// validation).

// releaseAfterBuildLocked schedules the release for after the next
// successful translation.
func (i *Inventory) releaseAfterBuildLocked() { i.releaseDue = true }

// releaseIfDueLocked starts the release when one is due.
func (i *Inventory) releaseIfDueLocked() {
	if !i.releaseDue {
		return
	}
	i.releaseDue = false
	i.release()
}

// freeOSMemory is the release (a test's counter in tests): in its own
// goroutine, as the full collection takes a while at scale.
func freeOSMemory() { go debug.FreeOSMemory() }
