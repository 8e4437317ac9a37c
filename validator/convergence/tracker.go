package convergence

import (
	"slices"
	"time"
)

// Change is a route change the cluster asked for and the network has not
// made yet.
type Change struct {
	Key       Key       `json:"key"`
	Direction Direction `json:"direction"`
	// Since is when the cluster changed (the informer's event time).
	Since time.Time `json:"since"`
}

// Completed is a change the network made, with how long it took.
type Completed struct {
	Change
	// At is when the collector saw the route change.
	At time.Time `json:"at"`
	// Duration is At-Since, 0 when the route changed before the cluster
	// change was seen (never negative).
	Duration time.Duration `json:"duration"`
}

// Present reports whether the collector holds a route of key (announced by
// its node, graceful-restart stale paths included: the switch still routes
// by them).
type Present func(Key) bool

// Tracker follows the expected routes from one cluster state to the next
// and the pending changes until the routes follow. It holds no clock: every
// time comes in as an argument. Not safe for concurrent use.
type Tracker struct {
	prev    *Expected
	pending map[Key]*Change
	history []Completed
	keep    int
}

// NewTracker returns a tracker that remembers the last keep completed changes.
func NewTracker(keep int) *Tracker {
	return &Tracker{pending: map[Key]*Change{}, keep: max(keep, 1)}
}

// Cluster folds in the cluster's expected routes as of at (when it changed).
// The first call sets the baseline: nothing is pending from before it. A key
// entering Announce that is not announced yet becomes a pending
// announcement, a key leaving Keep that is still announced a pending
// withdrawal; a pending change the cluster took back is dropped (a node that
// turned NotReady before its CIDR appeared, a Service deleted before its VIP
// was announced). A change the routes had already made when the cluster
// change was seen is not measured.
func (t *Tracker) Cluster(e Expected, at time.Time, present Present) {
	prev := t.prev
	t.prev = &e
	if prev == nil {
		return
	}
	for k, c := range t.pending {
		if (c.Direction == Announce && !e.Announce[k]) || (c.Direction == Withdraw && e.Keep[k]) {
			delete(t.pending, k)
		}
	}
	for k := range e.Announce {
		if !prev.Announce[k] && t.pending[k] == nil && !present(k) {
			t.pending[k] = &Change{Key: k, Direction: Announce, Since: at}
		}
	}
	for k := range prev.Keep {
		if !e.Keep[k] && t.pending[k] == nil && present(k) {
			t.pending[k] = &Change{Key: k, Direction: Withdraw, Since: at}
		}
	}
}

// Gone adds pending withdrawals of keys as of at: the routes a deleted node
// still announces beyond its allocations (a route left behind, another
// node's CIDR), which should go with the node. Keys already pending stay as
// they are; before the baseline it does nothing.
func (t *Tracker) Gone(keys []Key, at time.Time) {
	if t.prev == nil {
		return
	}
	for _, k := range keys {
		if t.pending[k] == nil {
			t.pending[k] = &Change{Key: k, Direction: Withdraw, Since: at}
		}
	}
}

// Observe checks the pending changes against the routes as of at (when the
// collector's table last changed) and returns those the routes made, in
// order.
func (t *Tracker) Observe(present Present, at time.Time) []Completed {
	var done []Completed
	for k, c := range t.pending {
		if present(k) != (c.Direction == Announce) {
			continue
		}
		done = append(done, Completed{Change: *c, At: at, Duration: max(at.Sub(c.Since), 0)})
		delete(t.pending, k)
	}
	slices.SortFunc(done, func(a, b Completed) int { return compareKeys(a.Key, b.Key) })
	t.history = append(t.history, done...)
	if over := len(t.history) - t.keep; over > 0 {
		t.history = append(t.history[:0], t.history[over:]...)
	}
	return done
}

// Pending returns the changes still waiting, in order.
func (t *Tracker) Pending() []Change {
	out := make([]Change, 0, len(t.pending))
	for _, c := range t.pending {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Change) int { return compareKeys(a.Key, b.Key) })
	return out
}

// History returns the last completed changes, oldest first.
func (t *Tracker) History() []Completed { return slices.Clone(t.history) }

// ForgetBaseline drops the expected routes the next Cluster would diff
// against (the next call sets a new baseline); what is pending stays. A
// caller that keeps the cluster itself re-derives the baseline when it
// changes instead of holding a map entry per route in between.
func (t *Tracker) ForgetBaseline() { t.prev = nil }

// Baseline returns how many keys the expected routes the next Cluster would
// diff against hold, and false when there is no baseline (the next Cluster
// sets one).
func (t *Tracker) Baseline() (keys int, ok bool) {
	if t.prev == nil {
		return 0, false
	}
	return len(t.prev.Keep), true
}

// Reset forgets the baseline and what is pending (the inventory became
// unavailable: what happened meanwhile cannot be timed).
func (t *Tracker) Reset() {
	t.prev = nil
	clear(t.pending)
}
