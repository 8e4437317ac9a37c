package main

import (
	"fmt"
	"strings"
)

// beside are the rows of the BMP station's table: BIRD's and routewarden's
// BGP ingest and the station's ingest of the same UPDATEs over BMP, all
// with the raw sender, all of one run.
var beside = []struct{ collector, label string }{
	{"bird", "BIRD (BGP)"},
	{"routewarden", "routewarden (BGP)"},
	{"routewarden-bmp", "routewarden BMP station"},
}

// writeBMPBeside writes the BMP station's ingest beside BIRD's and
// routewarden's BGP ingest: time to hold every route, routes a second and
// the ratio to BIRD's time, from the trials of this run (the collectors
// alternate within every trial, so they saw the same load).
func writeBMPBeside(b *strings.Builder, res *Results) {
	gs := groups(res.Trials)
	n := map[string]int{}
	for _, t := range res.Trials {
		n[t.Workload] = t.N
	}
	header := false
	for _, w := range workloads(res.Trials) {
		if gs["routewarden-bmp|raw|"+w] == nil {
			continue
		}
		if !header {
			fmt.Fprintf(b, "\n### The BMP station beside BIRD\n\nThe raw sender's UPDATEs into BIRD and routewarden "+
				"over BGP, and the same UPDATEs over BMP into routewarden's BMP station (Route Monitoring, pre-policy), "+
				"in the same trials; medians (min–max). *× BIRD* is the median time to hold every route over BIRD's, "+
				"then each trial against BIRD's of the same round.\n\n")
			fmt.Fprintf(b, "| workload | collector | all held (s) | routes/s | CPU (s) | peak RSS (MB) | × BIRD: median | trial by trial |\n")
			fmt.Fprintf(b, "|---|---|---|---|---|---|---|---|\n")
			header = true
		}
		bird, okBird := statOf(groupHeld(gs["bird|raw|"+w]))
		for _, r := range beside {
			g := gs[r.collector+"|raw|"+w]
			if g == nil {
				continue
			}
			held, _ := statOf(g.held)
			cpu, _ := statOf(g.cpu)
			rss, _ := statOf(g.rssMB)
			spread := "–"
			if lo, hi, ok := pairRange(res, w, r.collector, "bird", heldSec, heldSec); ok && r.collector != "bird" {
				spread = fmt.Sprintf("%.2f–%.2fx", lo, hi)
				if lo == hi {
					spread = fmt.Sprintf("%.2fx", lo)
				}
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", w, r.label, held.fmt("%.3f"),
				perSecond(n[w], held.med), cpu.fmt("%.2f"), rss.fmt("%.0f"), ratio(held, bird, true, okBird), spread)
		}
	}
}

func heldSec(t Trial) float64 { return t.HeldSec }

// groupHeld is g's held times, none without g.
func groupHeld(g *group) []float64 {
	if g == nil {
		return nil
	}
	return g.held
}

// perSecond is n routes in sec seconds as routes a second (M or k).
func perSecond(n int, sec float64) string {
	if sec <= 0 {
		return "–"
	}
	switch r := float64(n) / sec; {
	case r >= 1e6:
		return fmt.Sprintf("%.2fM", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.0fk", r/1e3)
	default:
		return fmt.Sprintf("%.0f", r)
	}
}
