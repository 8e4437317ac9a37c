package validator

import (
	"slices"
	"testing"
)

func TestAnnouncerIndexExpected(t *testing.T) {
	nodes := []Node{{Name: "c"}, {Name: "a"}, {Name: "b"}, {Name: "a"}}
	ep := func(node string, ready bool) Endpoint { return Endpoint{NodeName: node, Ready: ready} }
	local := "Local"
	tests := []struct {
		name   string
		asns   map[string][]uint32
		policy string
		eps    []Endpoint
		want   []string // names, in node order
	}{
		{name: "cluster policy: every node", policy: "Cluster", eps: []Endpoint{ep("b", true)},
			want: []string{"c", "a", "b", "a"}},
		{name: "cluster policy: the nodes given an ASN", policy: "Cluster",
			asns: map[string][]uint32{"b": {65010}, "c": {65010}, "a": nil}, want: []string{"c", "b"}},
		{name: "local: the ready endpoints' nodes, in node order", policy: local,
			eps: []Endpoint{ep("b", true), ep("c", true), ep("b", true)}, want: []string{"c", "b"}},
		{name: "local: an unready endpoint does not count", policy: local,
			eps: []Endpoint{ep("b", false), ep("c", true)}, want: []string{"c"}},
		{name: "local: a node ready by another endpoint", policy: local,
			eps: []Endpoint{ep("b", false), ep("b", true)}, want: []string{"b"}},
		{name: "local: an endpoint on no known node", policy: local, eps: []Endpoint{ep("gone", true)}},
		{name: "local: every node of a name", policy: local, eps: []Endpoint{ep("a", true)}, want: []string{"a", "a"}},
		{name: "local: only nodes given an ASN", policy: local, asns: map[string][]uint32{"c": {65010}},
			eps: []Endpoint{ep("b", true), ep("c", true)}, want: []string{"c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cluster{Nodes: nodes, NodeASNs: tt.asns}
			svc := &Service{ExternalTrafficPolicy: tt.policy, Endpoints: tt.eps}
			var got []string
			for _, n := range NewAnnouncerIndex(c).Expected(svc) {
				if !pointsInto(c.Nodes, n) {
					t.Fatalf("node %s is a copy, not the cluster's", n.Name)
				}
				got = append(got, n.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Expected() = %v, want %v", got, tt.want)
			}
		})
	}
}

func pointsInto(nodes []Node, n *Node) bool {
	for i := range nodes {
		if &nodes[i] == n {
			return true
		}
	}
	return false
}
