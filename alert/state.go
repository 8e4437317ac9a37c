package alert

import (
	"maps"
	"time"
)

// entry is one alert the Dispatcher knows: firing, or resolved at resolvedAt.
type entry struct {
	alert       Alert
	fingerprint string
	resolvedAt  time.Time
}

func (e *entry) notice() Notice {
	return Notice{Alert: e.alert, EndsAt: e.resolvedAt, Fingerprint: e.fingerprint}
}

// state is the Dispatcher's memory: what fires, and what resolved recently
// enough that its resolution is still being repeated. It is not safe for
// concurrent use; the Dispatcher guards it.
type state struct {
	entries     map[string]*entry
	resolvedFor time.Duration
}

func newState(resolvedFor time.Duration) *state {
	return &state{entries: map[string]*entry{}, resolvedFor: resolvedFor}
}

// update applies the complete set of alerts firing at now and returns what
// must be sent at once: alerts that are new (or fire again), alerts whose
// annotations or generator URL changed, and alerts that stopped firing.
func (s *state) update(firing []Alert, now time.Time) []Notice {
	current := make(map[string]Alert, len(firing))
	for _, a := range firing {
		a = a.clone()
		if len(a.Labels) == 0 {
			continue // Alertmanager rejects an alert without labels.
		}
		current[fingerprint(a.Labels)] = a
	}
	var out []Notice
	for fp, a := range current {
		e, ok := s.entries[fp]
		switch {
		case !ok || !e.resolvedAt.IsZero():
			if a.StartsAt.IsZero() {
				a.StartsAt = now
			}
			e = &entry{alert: a, fingerprint: fp}
			s.entries[fp] = e
		case !maps.Equal(e.alert.Annotations, a.Annotations) || e.alert.GeneratorURL != a.GeneratorURL:
			e.alert.Annotations, e.alert.GeneratorURL = a.Annotations, a.GeneratorURL
		default:
			continue
		}
		out = append(out, e.notice())
	}
	for fp, e := range s.entries {
		if _, ok := current[fp]; ok || !e.resolvedAt.IsZero() {
			continue
		}
		e.resolvedAt = now
		if e.resolvedAt.Before(e.alert.StartsAt) {
			e.resolvedAt = e.alert.StartsAt // Alertmanager rejects an end before the start.
		}
		out = append(out, e.notice())
	}
	s.forget(now)
	sortNotices(out)
	return out
}

// snapshot returns everything to repeat: every firing alert and every alert
// resolved less than resolvedFor ago.
func (s *state) snapshot(now time.Time) []Notice {
	s.forget(now)
	out := make([]Notice, 0, len(s.entries))
	for _, e := range s.entries {
		out = append(out, e.notice())
	}
	sortNotices(out)
	return out
}

// forget drops alerts resolved resolvedFor or longer ago.
func (s *state) forget(now time.Time) {
	for fp, e := range s.entries {
		if !e.resolvedAt.IsZero() && now.Sub(e.resolvedAt) >= s.resolvedFor {
			delete(s.entries, fp)
		}
	}
}

// firing returns the alerts firing now, in label order.
func (s *state) firing() []Alert {
	ns := make([]Notice, 0, len(s.entries))
	for _, e := range s.entries {
		if e.resolvedAt.IsZero() {
			ns = append(ns, e.notice())
		}
	}
	sortNotices(ns)
	out := make([]Alert, len(ns))
	for i, n := range ns {
		out[i] = n.Alert.clone()
	}
	return out
}

// firingCount is the number of alerts firing now.
func (s *state) firingCount() int {
	n := 0
	for _, e := range s.entries {
		if e.resolvedAt.IsZero() {
			n++
		}
	}
	return n
}
