package monitor

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"
)

// awaitingWarm is a fakePeerWarm that also says whom it waits for.
type awaitingWarm struct{ fakePeerWarm }

func (f *awaitingWarm) AwaitedPeers(groups [][]netip.Addr) (static []netip.Addr, waiting []int) {
	for i, g := range groups {
		if !slices.ContainsFunc(g, func(a netip.Addr) bool { return slices.Contains(f.eor, a) }) {
			waiting = append(waiting, i)
		}
	}
	return nil, waiting
}

// During warm-up the state says when the timeout ends it and which nodes'
// End-of-RIB would end it sooner; after it, neither.
func TestWarmupStateSaysWhatItWaitsFor(t *testing.T) {
	routes, cluster := world()
	now := time.Unix(1_000_000, 0)
	warm := &awaitingWarm{fakePeerWarm{ranges: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}}}
	l := New(routes, cluster, warm, Options{Now: func() time.Time { return now }, WarmupTimeout: time.Minute})
	l.started = now
	for _, step := range []struct {
		eor, want string
	}{
		{"", "[{node1 [10.0.0.11]} {node2 [10.0.0.12]}] ends 1000060"},
		{"10.0.0.11", "[{node2 [10.0.0.12]}] ends 1000060"},
		{"10.0.0.12", "[] ends -62135596800"},
	} {
		if step.eor != "" {
			warm.eor = append(warm.eor, netip.MustParseAddr(step.eor))
		}
		l.runOnce()
		st := l.State()
		got := fmt.Sprintf("%v ends %d", orNone(st.Awaiting), st.WarmupEnds.Unix())
		if got != step.want {
			t.Errorf("after End-of-RIB from %q: %s, want %s", step.eor, got, step.want)
		}
	}
}

func orNone(a []AwaitedPeer) []AwaitedPeer {
	if a == nil {
		return []AwaitedPeer{}
	}
	return a
}
