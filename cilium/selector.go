package cilium

import "slices"

// LabelSelector is a Kubernetes label selector. A nil *LabelSelector matches
// everything, as Cilium treats an absent nodeSelector; an empty one matches
// everything too. (Where nil selects nothing, a service selector or an
// advertisement's, the reader checks for nil first.)
type LabelSelector struct {
	MatchLabels      map[string]string `yaml:"matchLabels"`
	MatchExpressions []Requirement     `yaml:"matchExpressions"`
}

// Requirement is one matchExpressions entry.
type Requirement struct {
	Key      string   `yaml:"key"`
	Operator string   `yaml:"operator"`
	Values   []string `yaml:"values"`
}

// Matches reports whether labels satisfy the selector.
func (s *LabelSelector) Matches(labels map[string]string) bool {
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
