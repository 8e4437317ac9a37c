package alert

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// describe renders notices relative to t0: "firing 10.0.1.0/24 from 0s" or
// "resolved 10.0.2.0/24 from 0s to 1m0s".
func describe(ns []Notice) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		s := fmt.Sprintf("firing %s from %s", n.Labels["prefix"], n.StartsAt.Sub(t0))
		if n.Resolved() {
			s = fmt.Sprintf("resolved %s from %s to %s", n.Labels["prefix"], n.StartsAt.Sub(t0), n.EndsAt.Sub(t0))
		}
		if n.Fingerprint != n.Alert.Fingerprint() {
			s += " (wrong fingerprint)"
		}
		out = append(out, s)
	}
	return out
}

func TestStateUpdate(t *testing.T) {
	withAnnotation := testAlert(1)
	withAnnotation.Annotations = map[string]string{"summary": "changed"}
	emptyPeer := testAlert(1)
	emptyPeer.Labels = map[string]string{"peer": ""}
	for k, v := range testAlert(1).Labels {
		emptyPeer.Labels[k] = v
	}
	inventory := InventoryUnavailable("connection refused", t0.Add(-time.Hour), FindingOptions{})
	inventory.Labels["prefix"] = "inventory"

	type step struct {
		at       time.Duration
		publish  []Alert
		snapshot bool // take a snapshot instead of publishing
		want     []string
		firing   int
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "new alerts are sent once", steps: []step{
			{publish: []Alert{testAlert(2), testAlert(1)}, firing: 2,
				want: []string{"firing 10.0.1.0/24 from 0s", "firing 10.0.2.0/24 from 0s"}},
			{at: time.Minute, publish: []Alert{testAlert(1), testAlert(2)}, firing: 2},
			{at: 2 * time.Minute, snapshot: true, firing: 2,
				want: []string{"firing 10.0.1.0/24 from 0s", "firing 10.0.2.0/24 from 0s"}},
		}},
		{name: "a disappeared alert is resolved, repeated for ResolvedFor, then forgotten", steps: []step{
			{publish: []Alert{testAlert(1), testAlert(2)}, firing: 2,
				want: []string{"firing 10.0.1.0/24 from 0s", "firing 10.0.2.0/24 from 0s"}},
			{at: time.Minute, publish: []Alert{testAlert(1)}, firing: 1,
				want: []string{"resolved 10.0.2.0/24 from 0s to 1m0s"}},
			{at: 5 * time.Minute, snapshot: true, firing: 1,
				want: []string{"firing 10.0.1.0/24 from 0s", "resolved 10.0.2.0/24 from 0s to 1m0s"}},
			{at: 6 * time.Minute, snapshot: true, firing: 1, want: []string{"firing 10.0.1.0/24 from 0s"}},
		}},
		{name: "an alert firing again starts again", steps: []step{
			{publish: []Alert{testAlert(1)}, firing: 1, want: []string{"firing 10.0.1.0/24 from 0s"}},
			{at: time.Minute, publish: nil, want: []string{"resolved 10.0.1.0/24 from 0s to 1m0s"}},
			{at: 2 * time.Minute, publish: []Alert{testAlert(1)}, firing: 1,
				want: []string{"firing 10.0.1.0/24 from 2m0s"}},
			{at: 3 * time.Minute, snapshot: true, firing: 1, want: []string{"firing 10.0.1.0/24 from 2m0s"}},
		}},
		{name: "changed annotations are sent at once, keeping the start", steps: []step{
			{publish: []Alert{testAlert(1)}, firing: 1, want: []string{"firing 10.0.1.0/24 from 0s"}},
			{at: time.Minute, publish: []Alert{withAnnotation}, firing: 1,
				want: []string{"firing 10.0.1.0/24 from 0s"}},
		}},
		{name: "identity ignores empty labels and duplicates", steps: []step{
			{publish: []Alert{testAlert(1), emptyPeer, testAlert(1)}, firing: 1,
				want: []string{"firing 10.0.1.0/24 from 0s"}},
			{at: time.Minute, publish: []Alert{emptyPeer}, firing: 1},
		}},
		{name: "a given start time is kept", steps: []step{
			{publish: []Alert{inventory}, firing: 1, want: []string{"firing inventory from -1h0m0s"}},
			{at: time.Minute, publish: nil, want: []string{"resolved inventory from -1h0m0s to 1m0s"}},
		}},
		{name: "alerts without labels are ignored", steps: []step{
			{publish: []Alert{{Annotations: map[string]string{"summary": "x"}}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newState(5 * time.Minute)
			for i, st := range tt.steps {
				var got []Notice
				if st.snapshot {
					got = s.snapshot(t0.Add(st.at))
				} else {
					got = s.update(st.publish, t0.Add(st.at))
				}
				if d := describe(got); !slices.Equal(d, st.want) {
					t.Errorf("step %d: got %q, want %q", i, d, st.want)
				}
				if n := s.firingCount(); n != st.firing || len(s.firing()) != n {
					t.Errorf("step %d: %d firing (%d listed), want %d", i, n, len(s.firing()), st.firing)
				}
			}
		})
	}
}

func TestStateFiringIsACopy(t *testing.T) {
	s := newState(time.Minute)
	in := testAlert(1)
	s.update([]Alert{in}, t0)
	in.Labels["node"] = "mutated by the caller"
	out := s.firing()
	out[0].Annotations["summary"] = "mutated by the API"
	again := s.firing()
	if again[0].Labels["node"] != "node-1" || again[0].Annotations["summary"] != "stale route 1" {
		t.Errorf("state shares maps with its callers: %v %v", again[0].Labels, again[0].Annotations)
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		attempt int
		lo, hi  time.Duration
	}{
		{attempt: 0, lo: 500 * time.Millisecond, hi: 500 * time.Millisecond},
		{attempt: 1, lo: 500 * time.Millisecond, hi: time.Second},
		{attempt: 3, lo: 2 * time.Second, hi: 4 * time.Second},
		{attempt: 6, lo: 15 * time.Second, hi: 30 * time.Second},
		{attempt: 1000, lo: 15 * time.Second, hi: 30 * time.Second},
	}
	for _, tt := range tests {
		seen := map[time.Duration]bool{}
		for range 50 {
			d := backoff(tt.attempt, 500*time.Millisecond, 30*time.Second)
			if d < tt.lo || d > tt.hi {
				t.Errorf("backoff(%d) = %s, want within [%s, %s]", tt.attempt, d, tt.lo, tt.hi)
			}
			seen[d] = true
		}
		if len(seen) < 2 && tt.lo != tt.hi {
			t.Errorf("backoff(%d) is not jittered: always %v", tt.attempt, seen)
		}
	}
}
