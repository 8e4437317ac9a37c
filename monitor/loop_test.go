package monitor

import (
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

type fakeRoutes struct{ routes []validator.Route }

func (f *fakeRoutes) Routes() ([]validator.Route, uint64) { return f.routes, 0 }
func (f *fakeRoutes) Changed() <-chan struct{}            { return nil }

type fakeCluster struct {
	c      *validator.Cluster
	status validator.InventoryStatus
}

func (f *fakeCluster) Cluster(time.Time) (*validator.Cluster, uint64, error) { return f.c, 0, nil }
func (f *fakeCluster) Changed() <-chan struct{}                              { return nil }
func (f *fakeCluster) InventoryStatus() validator.InventoryStatus            { return f.status }

type fakeWarm struct{ ok bool }

func (f *fakeWarm) WarmedUp() bool { return f.ok }

type recorder struct{ transitions []Transition }

func (r *recorder) Observe(_ State, ts []Transition) { r.transitions = append(r.transitions, ts...) }

// A two-node cluster; node2's CIDR is announced by node1 (foreign-cidr) unless healthy.
func world() (*fakeRoutes, *fakeCluster) {
	c := &validator.Cluster{IPAM: validator.IPAM{Mode: validator.IPAMClusterPool}}
	for i, name := range []string{"node1", "node2"} {
		ip := netip.AddrFrom4([4]byte{10, 0, 0, byte(11 + i)})
		cidr := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(1 + i), 0}), 24)
		c.Nodes = append(c.Nodes, validator.Node{Name: name, Addresses: []netip.Addr{ip}, Ready: true})
		c.CiliumNodes = append(c.CiliumNodes, validator.CiliumNode{Name: name, Addresses: []netip.Addr{ip},
			PodCIDRs: []netip.Prefix{cidr}})
	}
	return &fakeRoutes{routes: healthy()}, &fakeCluster{c: c, status: validator.InventoryStatus{Synced: true, Available: true}}
}

func healthy() []validator.Route {
	return []validator.Route{
		{Prefix: netip.MustParsePrefix("10.244.1.0/24"),
			Attributes: &validator.Attributes{NextHop: netip.MustParseAddr("10.0.0.11")}},
		{Prefix: netip.MustParsePrefix("10.244.2.0/24"),
			Attributes: &validator.Attributes{NextHop: netip.MustParseAddr("10.0.0.12")}},
	}
}

// node2 withdrew its CIDR: one missing-route finding.
func withdrawn() []validator.Route { return healthy()[:1] }

type step struct {
	after     time.Duration
	routes    []validator.Route
	available *bool
	warm      *bool
	want      []TransitionKind // transitions at this step
}

func ptr(b bool) *bool { return &b }

func TestLoop(t *testing.T) {
	cases := []struct {
		name     string
		holdDown time.Duration
		warm     bool
		steps    []step
	}{
		{name: "hold-down 0 fires and resolves at once", warm: true, steps: []step{
			{routes: withdrawn(), want: []TransitionKind{Fired}},
			{after: time.Second, routes: healthy(), want: []TransitionKind{Resolved}},
		}},
		{name: "a finding shorter than the hold-down never fires", holdDown: 30 * time.Second, warm: true, steps: []step{
			{routes: withdrawn()},
			{after: 10 * time.Second, routes: healthy()},
			{after: 60 * time.Second},
		}},
		{name: "a persistent finding fires after the hold-down", holdDown: 30 * time.Second, warm: true, steps: []step{
			{routes: withdrawn()},
			{after: 29 * time.Second},
			{after: 31 * time.Second, want: []TransitionKind{Fired}},
		}},
		{name: "nothing fires during warm-up", steps: []step{
			{routes: withdrawn()},
			{after: time.Minute},
			{after: time.Minute + time.Second, warm: ptr(true), want: []TransitionKind{Fired}},
		}},
		{name: "warm-up ends by timeout", steps: []step{
			{routes: withdrawn()},
			{after: 2*time.Minute + time.Second, want: []TransitionKind{Fired}},
		}},
		{name: "an API outage freezes: the cache's silence is no alert", warm: true, steps: []step{
			{routes: healthy()},
			{after: time.Second, available: ptr(false), routes: withdrawn()},
			{after: time.Minute},
			{after: 2 * time.Minute, available: ptr(true), want: []TransitionKind{Fired}},
		}},
		{name: "a firing finding is not resolved while frozen", warm: true, steps: []step{
			{routes: withdrawn(), want: []TransitionKind{Fired}},
			{after: time.Second, available: ptr(false), routes: healthy()},
			{after: time.Minute, available: ptr(true), want: []TransitionKind{Resolved}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			routes, cluster := world()
			warm := &fakeWarm{ok: tc.warm}
			now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
			start := now
			rec := &recorder{}
			l := New(routes, cluster, warm, Options{HoldDown: tc.holdDown, Now: func() time.Time { return now }}, rec)
			l.started = start
			for i, s := range tc.steps {
				now = start.Add(s.after)
				if s.routes != nil {
					routes.routes = s.routes
				}
				if s.available != nil {
					cluster.status.Available = *s.available
				}
				if s.warm != nil {
					warm.ok = *s.warm
				}
				rec.transitions = nil
				l.runOnce()
				var got []TransitionKind
				for _, tr := range rec.transitions {
					got = append(got, tr.Kind)
				}
				if len(got) != len(s.want) || (len(got) > 0 && got[0] != s.want[0]) {
					t.Fatalf("step %d: transitions %v, want %v", i, got, s.want)
				}
				if st := l.State(); st.Frozen != !cluster.status.Available {
					t.Errorf("step %d: frozen %v with inventory available %v", i, st.Frozen, cluster.status.Available)
				}
			}
		})
	}
}

func TestNothingBeforeTheInformersSynced(t *testing.T) {
	routes, cluster := world()
	routes.routes = nil
	cluster.status = validator.InventoryStatus{}
	rec := &recorder{}
	l := New(routes, cluster, &fakeWarm{ok: true}, Options{}, rec)
	l.runOnce()
	if len(rec.transitions) != 0 || len(l.State().Findings) != 0 || !l.State().WarmingUp {
		t.Fatalf("findings before sync: %+v", l.State())
	}
}
