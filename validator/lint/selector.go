package lint

import "slices"

// Selector is a Kubernetes label selector. A nil *Selector matches everything,
// as Cilium treats an absent nodeSelector; an empty one matches everything too.
type Selector struct {
	MatchLabels      map[string]string
	MatchExpressions []Requirement
}

// Requirement is one matchExpressions entry.
type Requirement struct {
	Key      string
	Operator string
	Values   []string
}

// Matches reports whether labels satisfy the selector.
func (s *Selector) Matches(labels map[string]string) bool {
	if s == nil {
		return true
	}
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range s.MatchExpressions {
		v, ok := labels[r.Key]
		switch r.Operator {
		case "In":
			if !ok || !slices.Contains(r.Values, v) {
				return false
			}
		case "NotIn":
			if ok && slices.Contains(r.Values, v) {
				return false
			}
		case "Exists":
			if !ok {
				return false
			}
		case "DoesNotExist":
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}
