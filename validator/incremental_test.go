package validator

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"
)

// addRandomServices gives a random cluster LoadBalancer Services, so that the
// VIP rules (which have no incremental form) take part in the comparison.
func addRandomServices(c *Cluster, rnd *rand.Rand) {
	c.ServicesKnown = rnd.IntN(3) > 0
	for i := range rnd.IntN(3) {
		svc := Service{Namespace: "ns", Name: fmt.Sprintf("svc%d", i), Type: "LoadBalancer",
			VIPs:      []netip.Addr{netip.AddrFrom4([4]byte{172, 16, 0, byte(1 + rnd.IntN(3))})},
			Announced: rnd.IntN(4) > 0, AnnouncedBy: "CiliumBGPAdvertisement test"}
		if rnd.IntN(2) == 0 {
			svc.ExternalTrafficPolicy = "Local"
		}
		for j := range rnd.IntN(3) {
			svc.Endpoints = append(svc.Endpoints, Endpoint{NodeName: fmt.Sprintf("n%d", j+rnd.IntN(3)),
				Ready: rnd.IntN(4) > 0})
		}
		c.Services = append(c.Services, svc)
	}
}

// randomRoute is a route of the random cluster's small address space.
func randomRoute(rnd *rand.Rand, pool []Route) Route {
	r := pool[rnd.IntN(len(pool))]
	switch rnd.IntN(4) {
	case 0:
		r.Unshare().NextHop = netip.AddrFrom4([4]byte{192, 168, 0, byte(rnd.IntN(8))})
	case 1:
		r.PathID = uint32(rnd.IntN(3))
	case 2:
		r.Stale = !r.Stale
	}
	return r
}

// sameResult fails the test when two results differ.
func sameResult(t *testing.T, what string, got, want Result) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("%s: engine result differs from Validate:\n%s\nwant:\n%s", what, g, w)
	}
}

// applyChange applies a Change to a multiset of findings.
func applyChange(t *testing.T, fs []Finding, ch Change) []Finding {
	t.Helper()
	out := slices.Clone(fs)
	for _, r := range ch.Removed {
		i := slices.Index(out, r)
		if i < 0 {
			t.Fatalf("change removes a finding that was not there: %+v", r)
		}
		out = slices.Delete(out, i, i+1)
	}
	out = append(out, ch.Added...)
	SortFindings(out)
	return out
}

// TestEngineMatchesValidate applies random route events to an Engine built
// from random clusters and compares it after every event with a full Validate
// of the same routes, for every registered rule (the VIP rules included), and
// checks that the returned Changes add up to the findings: seeds 0-59 here,
// 60-399 in TestEngineMatchesValidateMoreSeeds, which the quick tier skips.
func TestEngineMatchesValidate(t *testing.T) { engineMatchesValidate(t, 0, 60) }

// TestEngineMatchesValidateMoreSeeds is TestEngineMatchesValidate's seeds
// 60-399 (one test of 400 seeds before the quick tier, which runs 60).
func TestEngineMatchesValidateMoreSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: seeds 60-399 (TestEngineMatchesValidate runs 0-59)")
	}
	engineMatchesValidate(t, 60, 400)
}

// engineMatchesValidate is TestEngineMatchesValidate over seeds [from, to).
func engineMatchesValidate(t *testing.T, from, to uint64) {
	for seed := from; seed < to; seed++ {
		c, rs, opts := randomInputs(seed)
		rnd := rand.New(rand.NewPCG(seed, 99))
		addRandomServices(c, rnd)
		if len(rs) == 0 {
			rs = []Route{{Prefix: pfx("10.0.0.0/24"), Attributes: &Attributes{NextHop: addr("192.168.0.1")}}}
		}
		e := NewEngine(c, rs[:len(rs)/2], PolicyView{}, opts)
		sameResult(t, fmt.Sprintf("seed %d: new engine", seed), e.Result(), Validate(c, e.Routes(), PolicyView{}, opts))
		fs := e.Findings()
		for step := range 40 {
			var ch Change
			what := "add"
			if step%13 == 12 {
				what = "time"
				opts.Now = opts.Now.Add(time.Duration(1+rnd.IntN(600)) * time.Second)
				ch = e.SetNow(opts.Now)
			} else if step%10 == 9 {
				what = "sync"
				next := slices.Clone(e.Routes())
				rnd.Shuffle(len(next), func(i, j int) { next[i], next[j] = next[j], next[i] })
				next = next[:rnd.IntN(len(next)+1)]
				for range rnd.IntN(4) {
					next = append(next, randomRoute(rnd, rs))
				}
				ch = e.Sync(next)
				if want := NewEngine(c, next, PolicyView{}, opts).Routes(); !sameRouteSet(e.Routes(), want) {
					t.Fatalf("seed %d step %d: after Sync the engine holds %v, want %v", seed, step, e.Routes(), want)
				}
			} else if held := e.Routes(); len(held) > 0 && rnd.IntN(5) < 2 {
				what = "withdraw"
				ch = e.WithdrawRoute(held[rnd.IntN(len(held))])
			} else {
				ch = e.AddRoute(randomRoute(rnd, rs))
			}
			label := fmt.Sprintf("seed %d step %d (%s)", seed, step, what)
			sameResult(t, label, e.Result(), Validate(c, e.Routes(), PolicyView{}, opts))
			fs = applyChange(t, fs, ch)
			if !slices.Equal(fs, e.Findings()) {
				t.Fatalf("%s: the changes do not add up to the findings", label)
			}
		}
	}
}

func TestEngineWithdrawUnknownRouteChangesNothing(t *testing.T) {
	c, rs := syntheticCluster(50, 200)
	e := NewEngine(c, rs, PolicyView{}, Options{})
	before := e.Result()
	if ch := e.WithdrawRoute(Route{Prefix: pfx("192.0.2.0/24")}); !ch.Empty() {
		t.Errorf("withdrawing an unknown route changed %+v", ch)
	}
	sameResult(t, "after a no-op", e.Result(), before)
}

func TestEngineSetNowRenewsTombstoneAges(t *testing.T) {
	for seed := range uint64(200) {
		c, rs, opts := randomInputs(seed)
		e := NewEngine(c, rs, PolicyView{}, opts)
		opts.Now = opts.Now.Add(90 * 60e9)
		e.SetNow(opts.Now)
		sameResult(t, fmt.Sprintf("seed %d", seed), e.Result(), Validate(c, e.Routes(), PolicyView{}, opts))
	}
}

// sameRouteSet reports whether two route lists hold the same routes, in any order.
func sameRouteSet(a, b []Route) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
next:
	for i := range a {
		for j := range b {
			if !used[j] && sameRoute(&a[i], &b[j]) {
				used[j] = true
				continue next
			}
		}
		return false
	}
	return true
}

// TestEngineMatchesValidateOnSyntheticCluster checks the engine on the
// benchmarks' cluster, with and without Services, large enough for Validate
// to run its rules in parallel.
func TestEngineMatchesValidateOnSyntheticCluster(t *testing.T) {
	for _, services := range []bool{false, true} {
		c, rs := syntheticCluster(2000, 25_000)
		if services {
			withSyntheticServices(c, rs)
		}
		e := NewEngine(c, rs, PolicyView{}, Options{})
		if len(e.Routes()) != len(rs) {
			t.Fatalf("the engine holds %d routes of %d: identities repeat", len(e.Routes()), len(rs))
		}
		sameResult(t, "synthetic", e.Result(), Validate(c, rs, PolicyView{}, Options{}))
		for i := 0; i < len(rs); i += 101 {
			e.WithdrawRoute(rs[i])
		}
		for i := 0; i < len(rs); i += 202 {
			e.AddRoute(rs[i])
		}
		sameResult(t, "after events", e.Result(), Validate(c, e.Routes(), PolicyView{}, Options{}))
	}
}
