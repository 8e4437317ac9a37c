package main

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
)

// stat is a median with its min and max.
type stat struct{ med, min, max float64 }

func statOf(xs []float64) (stat, bool) {
	if len(xs) == 0 {
		return stat{}, false
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stat{m, s[0], s[len(s)-1]}, true
}

func (s stat) fmt(format string) string {
	if s.min == s.max {
		return fmt.Sprintf(format, s.med)
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", s.med, s.min, s.max)
}

// group collects the successful trials of one collector, sender and workload.
type group struct {
	held, verdict, cpu, rssMB, bpr []float64
}

func groups(trials []Trial) map[string]*group {
	out := map[string]*group{}
	for _, t := range trials {
		if t.Err != "" {
			continue
		}
		k := t.Collector + "|" + t.Sender + "|" + t.Workload
		g := out[k]
		if g == nil {
			g = &group{}
			out[k] = g
		}
		g.held = append(g.held, t.HeldSec)
		if t.Collector == "routewarden" {
			g.verdict = append(g.verdict, t.VerdictSec)
		}
		g.cpu = append(g.cpu, t.CPUSec)
		g.rssMB = append(g.rssMB, float64(t.PeakRSSKB)/1024)
		g.bpr = append(g.bpr, t.BytesPerRoute)
	}
	return out
}

// workloads returns the workloads of the run in plan order.
func workloads(trials []Trial) []string {
	var out []string
	for _, t := range trials {
		if !slices.Contains(out, t.Workload) {
			out = append(out, t.Workload)
		}
	}
	return out
}

func render(res *Results, md, png string) error {
	if png != "" {
		if err := plot(res, png); err != nil {
			return fmt.Errorf("drawing %s: %w", png, err)
		}
	}
	if png != "" && res.Cluster != nil {
		if err := plotCluster(res, clusterPNG(png)); err != nil {
			return fmt.Errorf("drawing %s: %w", clusterPNG(png), err)
		}
	}
	if md == "" {
		return nil
	}
	var b strings.Builder
	writeReport(&b, res, png)
	return os.WriteFile(md, []byte(b.String()), 0o644)
}

func ratio(a, b stat, okA, okB bool) string {
	if !okA || !okB || b.med == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2fx", a.med/b.med)
}

func writeIngest(b *strings.Builder, res *Results) {
	gs := groups(res.Trials)
	fmt.Fprintf(b, "| workload | sender | collector | Established → all held (s) | → first complete verdict (s) | CPU (s) | peak RSS (MB) | bytes/route |\n")
	fmt.Fprintf(b, "|---|---|---|---|---|---|---|---|\n")
	for _, w := range workloads(res.Trials) {
		for _, snd := range []string{"raw", "gobgp"} {
			for _, c := range []string{"routewarden", "routewarden-noval", "routewarden-bmp", "gobgpd", "gobgpd-bmp", "bird"} {
				g := gs[c+"|"+snd+"|"+w]
				if g == nil {
					continue
				}
				held, _ := statOf(g.held)
				cpu, _ := statOf(g.cpu)
				rss, _ := statOf(g.rssMB)
				bpr, _ := statOf(g.bpr)
				verdict := "–"
				if v, ok := statOf(g.verdict); ok {
					verdict = v.fmt("%.2f")
				}
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", w, snd, c, held.fmt("%.2f"), verdict,
					cpu.fmt("%.2f"), rss.fmt("%.0f"), bpr.fmt("%.0f"))
			}
		}
	}
	fmt.Fprintf(b, "\nRatios routewarden / bare gobgpd (medians; wall = routewarden's first complete verdict against gobgpd holding every route):\n\n")
	fmt.Fprintf(b, "| workload | sender | wall (verdict) | held | CPU | peak RSS | routewarden without validation: held, peak RSS | gobgpd watched over BMP: held, CPU |\n|---|---|---|---|---|---|---|---|\n")
	for _, w := range workloads(res.Trials) {
		for _, snd := range []string{"raw", "gobgp"} {
			a, o := gs["routewarden|"+snd+"|"+w], gs["gobgpd|"+snd+"|"+w]
			if a == nil || o == nil {
				continue
			}
			av, okAV := statOf(a.verdict)
			ah, okAH := statOf(a.held)
			oh, okOH := statOf(o.held)
			ac, okAC := statOf(a.cpu)
			oc, okOC := statOf(o.cpu)
			ar, okAR := statOf(a.rssMB)
			or, okOR := statOf(o.rssMB)
			nv := "–"
			if n := gs["routewarden-noval|"+snd+"|"+w]; n != nil {
				nh, okNH := statOf(n.held)
				nr, okNR := statOf(n.rssMB)
				nv = ratio(nh, oh, okNH, okOH) + ", " + ratio(nr, or, okNR, okOR)
			}
			watched := "–"
			if m := gs["gobgpd-bmp|"+snd+"|"+w]; m != nil {
				mh, okMH := statOf(m.held)
				mc, okMC := statOf(m.cpu)
				watched = ratio(mh, oh, okMH, okOH) + ", " + ratio(mc, oc, okMC, okOC)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", w, snd, ratio(av, oh, okAV, okOH),
				ratio(ah, oh, okAH, okOH), ratio(ac, oc, okAC, okOC), ratio(ar, or, okAR, okOR), nv, watched)
		}
	}
}

// wallPairs returns the range of routewarden's verdict over gobgpd's held
// time within each 1M trial (the two ran back to back): the spread a single
// median ratio hides.
func wallPairs(res *Results) (lo, hi float64, ok bool) {
	return pairRange(res, "ipv4-1M", "routewarden", "gobgpd", func(t Trial) float64 { return t.VerdictSec },
		func(t Trial) float64 { return t.HeldSec })
}

// pairRange returns the range of a(trial of collector a) / b(trial of
// collector b) over the trials of workload w with the raw sender, each trial
// of a against the trial of b with the same number (one round of the loop,
// the collectors alternating in it).
func pairRange(res *Results, w, a, b string, av, bv func(Trial) float64) (lo, hi float64, ok bool) {
	num, den := map[int]float64{}, map[int]float64{}
	for _, t := range res.Trials {
		switch {
		case t.Err != "" || t.Sender != "raw" || t.Workload != w:
		case t.Collector == a:
			num[t.Trial] = av(t)
		case t.Collector == b:
			den[t.Trial] = bv(t)
		}
	}
	for k, v := range num {
		if d := den[k]; d > 0 {
			r := v / d
			if !ok || r < lo {
				lo = r
			}
			if !ok || r > hi {
				hi = r
			}
			ok = true
		}
	}
	return lo, hi, ok
}

// targetRatios are the 1M-prefix ratios the targets are about (raw sender).
func targetRatios(res *Results) (wall, rss float64, ok bool) {
	gs := groups(res.Trials)
	a, o := gs["routewarden|raw|ipv4-1M"], gs["gobgpd|raw|ipv4-1M"]
	if a == nil || o == nil {
		return 0, 0, false
	}
	av, _ := statOf(a.verdict)
	oh, _ := statOf(o.held)
	ar, _ := statOf(a.rssMB)
	or, _ := statOf(o.rssMB)
	return av.med / oh.med, ar.med / or.med, true
}

func writeGoBench(b *strings.Builder, res *Results, pkgPrefix string) bool {
	any := false
	for _, g := range res.GoBench {
		if !strings.HasPrefix(g.Package, pkgPrefix) {
			continue
		}
		if !any {
			fmt.Fprintf(b, "| benchmark | time/op | B/op | allocs/op | other |\n|---|---|---|---|---|\n")
			any = true
		}
		var other []string
		for k, v := range g.Metrics {
			if k != "ns/op" && k != "B/op" && k != "allocs/op" {
				other = append(other, fmt.Sprintf("%g %s", v, k))
			}
		}
		sort.Strings(other)
		fmt.Fprintf(b, "| `%s` (%s) | %s | %.0f | %.0f | %s |\n", strings.TrimPrefix(g.Name, "Benchmark"),
			strings.TrimPrefix(g.Package, "github.com/routewarden/routewarden/"), dur(g.Metrics["ns/op"]),
			g.Metrics["B/op"], g.Metrics["allocs/op"], strings.Join(other, ", "))
	}
	return any
}

func dur(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}
