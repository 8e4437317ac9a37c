package interop

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// releases are the Cilium releases the harness runs: one line each (and its module, see README.md).
var releases = []string{"v1.20.2"}

func TestCilium(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	for _, rel := range releases {
		for _, s := range scenarios() {
			t.Run(rel+"/"+s.name, func(t *testing.T) { runScenario(t, rel, s) })
		}
	}
}

// runScenario brings the scenario's cluster up, waits for its healthy state, then goes through
// its steps.
func runScenario(t *testing.T, release string, s scenario) {
	l := newLab(t, release)
	ipam := cmpOr(s.ipam, "cluster-pool")
	all := join(ciliumConfig(ipam), cmpOr(s.nodes, nodes(s.n)), s.objects)
	if s.extra != "" {
		all = join(all, s.extra)
	}
	l.apply(all)
	l.startRoutewarden()
	l.startOperator()
	for i := 1; i <= s.n; i++ {
		l.startAgent(i, ipam)
	}
	l.expect("healthy", nil, s.routes, s.check)
	for _, st := range s.steps {
		st.change(l)
		l.expect(st.name, st.findings, st.routes, st.check)
	}
}

// expect waits until routewarden is warmed up, shows exactly the findings want ("rule prefix
// node") and routes paths, passing check, and still does a second later; it reports what it saw, and fails with it after 90 s.
func (l *lab) expect(what string, want []string, routes int, check func(verdict) error) {
	l.t.Helper()
	slices.Sort(want)
	deadline := time.Now().Add(90 * time.Second)
	var v verdict
	var err, checked error
	for stable := 0; stable < 2; {
		if time.Now().After(deadline) {
			l.t.Fatalf("%s: not reached in 90 s: want findings %q and %d routes (%v); %s", what, want, routes, checked,
				describe(v, err))
		}
		time.Sleep(time.Second)
		v, err = poll()
		checked = nil
		if err == nil && check != nil {
			checked = check(v)
		}
		if err == nil && checked == nil && !v.WarmingUp && slices.Equal(v.keys(), want) && len(v.Routes) == routes {
			stable++
		} else {
			stable = 0
		}
	}
	l.t.Logf("%s: %d findings, %d routes\n%s", what, len(v.Findings), len(v.Routes), describe(v, nil))
}

// describe is a verdict in words, for the report.
func describe(v verdict, err error) string {
	if err != nil {
		return "routewarden: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "warming up %v\n", v.WarmingUp)
	for _, r := range v.Routes {
		fmt.Fprintf(&b, "  route   %s\n", r)
	}
	for _, f := range v.Findings {
		fmt.Fprintf(&b, "  finding %s: %s\n", f.key(), f.Message)
	}
	return b.String()
}
