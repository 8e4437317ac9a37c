package interop

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCilium(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	for _, rel := range releases(t) {
		for _, s := range scenarios() {
			t.Run(rel+"/"+s.name, func(t *testing.T) { runScenario(t, rel, s) })
		}
	}
}

// runScenario brings the scenario's cluster up, waits for its healthy state, then goes through
// its steps.
func runScenario(t *testing.T, release string, s scenario) {
	l := newLab(t, release)
	l.ciliumbgp = filepath.Join(os.Getenv("CILIUMBGP_BINS"), "ciliumbgp-"+release, "ciliumbgp")
	ipam := cmpOr(s.ipam, "cluster-pool")
	all := join(ciliumConfig(ipam), cmpOr(s.nodes, nodes(s.n)), s.objects)
	if s.extra != "" {
		all = join(all, s.extra)
	}
	l.apply(all)
	if s.viaToR {
		if why := torMissing(); why != "" {
			t.Skip(why)
		}
		l.startToR(s.n)
	}
	l.startRoutewarden(cmpOr(s.scope, `{bgp: "true"}`), s.viaToR)
	l.startOperator()
	for i := 1; i <= s.n; i++ {
		l.startAgent(i, ipam)
	}
	first := "healthy"
	if len(s.gap) > 0 {
		first = "misjudged (a gap in routewarden, DIFFERENCES.md)"
	}
	l.expect(first, s.gap, s.routes, s.check)
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

// releases are the versions of releases.txt, each a Cilium release the harness runs.
func releases(t *testing.T) []string {
	f, err := os.Open("releases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 0 && !strings.HasPrefix(fields[0], "#") {
			out = append(out, fields[0])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
