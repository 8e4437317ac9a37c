package monitor

import (
	"cmp"
	"slices"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// Tracked is a finding with its history.
type Tracked struct {
	validator.Finding
	FirstSeen time.Time `json:"firstSeen"`
	// Firing is set once the finding persisted for the hold-down outside warm-up.
	Firing      bool      `json:"firing"`
	FiringSince time.Time `json:"firingSince,omitempty"`
}

// TransitionKind says what happened to a finding.
type TransitionKind string

// The transitions observers see.
const (
	Fired    TransitionKind = "fired"
	Resolved TransitionKind = "resolved"
)

// Transition is a finding that started or stopped firing.
type Transition struct {
	Kind    TransitionKind `json:"kind"`
	Finding Tracked        `json:"finding"`
	At      time.Time      `json:"at"`
}

// lifecycle tracks each finding from first seen through firing (after its
// hold-down) to resolved, over successive validation results.
type lifecycle struct {
	holdDown time.Duration
	byKey    map[string]*Tracked
}

func newLifecycle(holdDown time.Duration) *lifecycle {
	return &lifecycle{holdDown: holdDown, byKey: map[string]*Tracked{}}
}

// update folds a new result in. mayFire is false during warm-up: findings are
// tracked (their hold-down runs) but none fires.
func (t *lifecycle) update(findings []validator.Finding, now time.Time, mayFire bool) []Transition {
	var out []Transition
	seen := make(map[string]bool, len(findings))
	for _, f := range findings {
		key := f.Key()
		seen[key] = true
		tr, ok := t.byKey[key]
		if !ok {
			tr = &Tracked{Finding: f, FirstSeen: now}
			t.byKey[key] = tr
		}
		tr.Finding = f // messages may change (ages, counts)
		if !tr.Firing && mayFire && now.Sub(tr.FirstSeen) >= holdDownOf(f, t.holdDown) {
			tr.Firing, tr.FiringSince = true, now
			out = append(out, Transition{Kind: Fired, Finding: *tr, At: now})
		}
	}
	for key, tr := range t.byKey {
		if seen[key] {
			continue
		}
		if tr.Firing {
			out = append(out, Transition{Kind: Resolved, Finding: *tr, At: now})
		}
		delete(t.byKey, key)
	}
	sortTransitions(out)
	return out
}

// firing reports whether some tracked finding fires.
func (t *lifecycle) firing() bool {
	for _, tr := range t.byKey {
		if tr.Firing {
			return true
		}
	}
	return false
}

// nextDeadline is when a pending finding's hold-down ends (zero if none).
func (t *lifecycle) nextDeadline() time.Time {
	var next time.Time
	for _, tr := range t.byKey {
		if tr.Firing {
			continue
		}
		d := tr.FirstSeen.Add(t.holdDown)
		if next.IsZero() || d.Before(next) {
			next = d
		}
	}
	return next
}

// all returns the tracked findings in canonical order.
func (t *lifecycle) all() []Tracked {
	fs := make([]validator.Finding, 0, len(t.byKey))
	for _, tr := range t.byKey {
		fs = append(fs, tr.Finding)
	}
	validator.SortFindings(fs)
	out := make([]Tracked, len(fs))
	for i, f := range fs {
		out[i] = *t.byKey[f.Key()]
	}
	return out
}

func sortTransitions(ts []Transition) {
	slices.SortFunc(ts, func(a, b Transition) int {
		return cmp.Or(validator.CompareFindings(a.Finding.Finding, b.Finding.Finding), cmp.Compare(a.Kind, b.Kind))
	})
}
