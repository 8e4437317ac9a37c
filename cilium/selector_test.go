package cilium

import "testing"

func TestSelector(t *testing.T) {
	l := map[string]string{"a": "1", "b": "2"}
	cases := []struct {
		s    *LabelSelector
		want bool
	}{
		{nil, true}, {&LabelSelector{}, true},
		{&LabelSelector{MatchLabels: map[string]string{"a": "1"}}, true},
		{&LabelSelector{MatchLabels: map[string]string{"a": "2"}}, false},
		{&LabelSelector{MatchExpressions: []Requirement{{Key: "c", Operator: "DoesNotExist"}}}, true},
		{&LabelSelector{MatchExpressions: []Requirement{{Key: "a", Operator: "NotIn", Values: []string{"1"}}}}, false},
		{&LabelSelector{MatchExpressions: []Requirement{{Key: "b", Operator: "Exists"}}}, true},
		{&LabelSelector{MatchExpressions: []Requirement{{Key: "b", Operator: "Bogus"}}}, false},
	}
	for i, tc := range cases {
		if got := tc.s.Matches(l); got != tc.want {
			t.Errorf("case %d: got %v", i, got)
		}
	}
}
