package validator

import (
	"slices"
	"strings"
	"testing"
)

// TestAttributeMismatchPrePolicy: a ToR sending node1's paths pre- and
// post-policy over BMP. The post-policy path (the rules' view) carries the
// ToR's community; the pre-policy one (PolicyView.PrePolicy), what node1 sent,
// is judged for communities and origin AS, once: its post-policy copy is
// left alone. A post-policy path without a pre-policy copy is judged for its
// origin AS only, and so is a pre-policy path of the ToR's session to
// another router (its MLAG partner), whose policy set its communities. An Engine finds the same as Validate, after route events too.
func TestAttributeMismatchPrePolicy(t *testing.T) {
	tor := addr("192.0.2.2")
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1, n2)
	c.NodeASNs = map[string][]uint32{"node1": {65010}, "node2": {65010}}
	pods := &AttributeIntent{Communities: []string{"65010:100"}, Advertisements: []string{"pods"}}
	c.Advertised = &AdvertisedAttributes{NodeGroup: map[string]int{"node1": 0, "node2": 0},
		Groups: []AdvertisedGroup{{PodCIDR: pods}}}
	path := func(prefix, next string, post bool, origin uint32, std ...string) Route {
		a := addr(next)
		return Route{Prefix: pfx(prefix), Attributes: &Attributes{NextHop: a, Peer: a, Router: tor, PostPolicy: post,
			ASPath: []uint32{origin}, Communities: std}}
	}
	via := func(r Route, peer string) Route { // received over the ToR's session to peer
		a := *r.Attributes
		a.Peer = addr(peer)
		r.Attributes = &a
		return r
	}
	seenBy := func(r Route, router string) Route {
		a := *r.Attributes
		a.Router = addr(router)
		r.Attributes = &a
		return r
	}
	stale := func(r Route) Route { r.Stale = true; return r }
	tagged := []string{"65000:666", "65010:100"}
	for _, tc := range []struct {
		name      string
		pre, post []Route
		want      []string // "prefix node: part of the message"
	}{
		{name: "sent as told, tagged by the ToR",
			pre:  []Route{path("10.244.1.0/24", "10.0.0.11", false, 65010, "65010:100")},
			post: []Route{path("10.244.1.0/24", "10.0.0.11", true, 65010, tagged...)}},
		{name: "sent without the community: judged pre-policy",
			pre:  []Route{path("10.244.1.0/24", "10.0.0.11", false, 65010)},
			post: []Route{path("10.244.1.0/24", "10.0.0.11", true, 65010, "65000:666")},
			want: []string{"10.244.1.0/24 node1: communities none, expected 65010:100"}},
		{name: "wrong origin AS: one finding, pre-policy",
			pre:  []Route{path("10.244.1.0/24", "10.0.0.11", false, 65099, "65010:100")},
			post: []Route{path("10.244.1.0/24", "10.0.0.11", true, 65099, tagged...)},
			want: []string{"10.244.1.0/24 node1: origin AS 65099"}},
		{name: "dropped by the ToR: judged pre-policy still",
			pre:  []Route{path("10.244.1.0/24", "10.0.0.11", false, 65010, "65010:999")},
			want: []string{"10.244.1.0/24 node1: communities 65010:999, expected 65010:100"}},
		{name: "from the ToR's MLAG partner, its policy's communities: origin AS judged only",
			pre: []Route{via(path("10.244.1.0/24", "10.0.0.11", false, 65010, tagged...), "10.0.0.2"),
				via(path("10.244.2.0/24", "10.0.0.12", false, 65099, tagged...), "10.0.0.2")},
			want: []string{"10.244.2.0/24 node2: origin AS 65099"}},
		{name: "pre-policy copy stale (graceful restart): the post-policy one's origin AS judged",
			pre:  []Route{stale(path("10.244.1.0/24", "10.0.0.11", false, 65099, "65010:100"))},
			post: []Route{path("10.244.1.0/24", "10.0.0.11", true, 65099, tagged...)},
			want: []string{"10.244.1.0/24 node1: origin AS 65099"}},
		{name: "two ToRs monitoring node1: one finding naming both",
			pre: []Route{path("10.244.1.0/24", "10.0.0.11", false, 65010),
				seenBy(path("10.244.1.0/24", "10.0.0.11", false, 65010, "65010:999"), "192.0.2.3")},
			want: []string{"10.244.1.0/24 node1: communities none, expected 65010:100 (as router 192.0.2.2 received it). " +
				"node1 announces 10.244.1.0/24 via next hop 10.0.0.11 with communities 65010:999, expected 65010:100 " +
				"(as router 192.0.2.3 received it)."}},
		{name: "two ToRs receiving the same: one message naming both routers",
			pre: []Route{path("10.244.1.0/24", "10.0.0.11", false, 65010),
				seenBy(path("10.244.1.0/24", "10.0.0.11", false, 65010), "192.0.2.3")},
			want: []string{"10.244.1.0/24 node1: communities none, expected 65010:100 (as routers 192.0.2.2 and 192.0.2.3 " +
				"received it)."}},
		{name: "post-policy only: origin AS judged, communities not",
			post: []Route{path("10.244.1.0/24", "10.0.0.11", true, 65099, "65000:666"),
				path("10.244.2.0/24", "10.0.0.12", true, 65010)},
			want: []string{"10.244.1.0/24 node1: origin AS 65099"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, pv := *c, PolicyView{PrePolicy: tc.pre}
			var got []string
			for _, f := range Validate(&cl, tc.post, pv, Options{}).Findings {
				if f.Rule == RuleAttributeMismatch {
					got = append(got, f.Prefix.String()+" "+f.Node+": "+f.Message)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("findings %q, want %q", got, tc.want)
			}
			for i, w := range tc.want {
				prefix, msg, _ := strings.Cut(w, ": ")
				if !strings.HasPrefix(got[i], prefix+": ") || !strings.Contains(got[i], msg) {
					t.Errorf("finding %q, want %q", got[i], w)
				}
			}
			e := NewEngine(&cl, tc.post, pv, Options{})
			if want := Validate(&cl, tc.post, pv, Options{}).Findings; !slices.EqualFunc(e.Findings(), want, sameFinding) {
				t.Errorf("engine %v, Validate %v", e.Findings(), want)
			}
			extra := path("10.244.2.0/24", "10.0.0.12", true, 65099)
			e.AddRoute(extra)
			if want := Validate(&cl, append(slices.Clone(tc.post), extra), pv, Options{}).Findings; !slices.EqualFunc(e.Findings(), want, sameFinding) {
				t.Errorf("after a route event: engine %v, Validate %v", e.Findings(), want)
			}
		})
	}
}

func sameFinding(a, b Finding) bool { return a.Key() == b.Key() && a.Message == b.Message }
