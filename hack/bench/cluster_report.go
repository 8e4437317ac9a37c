package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"path/filepath"
	"strings"
)

// clusterPNG is where the cluster-scale plot goes, beside the ingest plot.
func clusterPNG(png string) string { return strings.TrimSuffix(png, ".png") + "-cluster.png" }

// writeCluster is the "Cluster scale" section of the report.
func writeCluster(b *strings.Builder, res *Results, png string) {
	c := res.Cluster
	fmt.Fprintf(b, "\n## 4. Cluster scale\n\n")
	if c == nil {
		b.WriteString("Not measured in this run (`bin/bench -cluster-only -cluster-nodes 5000` measures it).\n")
		return
	}
	o := c.Options
	fmt.Fprintf(b, "A real kube-apiserver v1.34.4 + etcd v3.6.4 (hack/kube-env.sh) holding **%d Nodes** shaped like a "+
		"production kubelet's (19 labels, 7 annotations, 5 conditions, dual-stack addresses, capacity, nodeInfo and a "+
		"%d-image list), **%d CiliumNodes** (dual-stack pod CIDRs, addresses), **%d LoadBalancer Services** with their "+
		"VIPs and **%d EndpointSlices (%d endpoints)**, an LB IP pool and the BGP control plane's ClusterConfig, "+
		"PeerConfig and Advertisement. The objects were created by %d concurrent client-go workers in **%.0f s**.\n\n",
		o.Nodes, imagesPerNode, o.Nodes, o.Services, o.Services, c.Endpoints, o.Workers, c.LoadSec)
	fmt.Fprintf(b, "Each watcher runs alone against it, one after the other: started, synced, %s to settle, a %s steady "+
		"window, then the API server and etcd are stopped for **%s** and started again, and the %s after the restart "+
		"are counted. The **floor** is `bench floor` (hack/bench/cluster_floor.go): client-go typed informers for "+
		"Nodes, Services, EndpointSlices and cilium-config, dynamic ones for Cilium's CRDs, with transforms dropping "+
		"what no rule reads, holding nothing else. `routewarden-base`, when present, is an older build given with "+
		"`-routewarden-base` (hack/bench/notes.md says which). Requests are the API server's own `apiserver_request_total` for the "+
		"watched resources (subresources excluded); after the outage they are counted from the restart, and so "+
		"include the API server's own loopback clients (it lists and watches ConfigMaps, Services, Nodes and "+
		"EndpointSlices itself), in both rows. Before each watcher starts, the harness waits until the API "+
		"server's watch caches of Nodes, CiliumNodes, Services and EndpointSlices have initialised "+
		"(`apiserver_watch_cache_initializations_total`): after the previous watcher's outage they initialise "+
		"asynchronously, and a list arriving before that is served from etcd in client-go's pages of 500 objects, "+
		"each page a LIST (an earlier run counted routewarden's 5,000 CiliumNodes as 10 LISTs that way).\n\n",
		o.Settle, o.Steady, o.Outage, o.After)
	if c.Err != "" {
		fmt.Fprintf(b, "**The run failed:** %s\n\n", strings.ReplaceAll(c.Err, "\n", " "))
	}
	b.WriteString("| watcher | informers listed | available | first verdict | peak RSS | steady RSS | CPU to settle | CPU steady | resync after outage |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range c.Procs {
		fmt.Fprintf(b, "| %s | %.1f s | %.1f s | %.1f s | %.0f MB | %.0f MB | %.1f s | %.2f s | %.1f s |\n", p.Name,
			p.ListedSec, p.SyncSec, p.VerdictSec, p.PeakRSSMB, p.SteadyRSSMB, p.CPUSyncSec, p.CPUSteady, p.ResyncSec)
	}
	b.WriteString("\n| watcher | requests at start | steady | after the outage |\n|---|---|---|---|\n")
	for _, p := range c.Procs {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", p.Name, p.AtStart.verbs(), p.Steady.verbs(), p.AfterOutage.verbs())
	}
	writeClusterRoutes(b, c)
	for _, p := range c.Procs {
		if p.Err != "" {
			fmt.Fprintf(b, "\n%s failed: %s\n", p.Name, strings.ReplaceAll(p.Err, "\n", " "))
		}
	}
	writeClusterTargets(b, c)
	if png != "" {
		fmt.Fprintf(b, "\n![RSS of the watchers over time](%s)\n", filepath.ToSlash(clusterPNG(png)))
	}
}

func writeClusterTargets(b *strings.Builder, c *ClusterResult) {
	var floor, rw *ClusterProc
	for i := range c.Procs {
		switch c.Procs[i].Name {
		case "floor":
			floor = &c.Procs[i]
		case "routewarden":
			rw = &c.Procs[i]
		}
	}
	if floor == nil || rw == nil || floor.SteadyRSSMB == 0 || rw.Err != "" {
		return
	}
	fmt.Fprintf(b, "\n| target | measured | status |\n|---|---|---|\n")
	r := rw.SteadyRSSMB / floor.SteadyRSSMB
	fmt.Fprintf(b, "| steady RSS <= 1.2x the floor's | %.2fx (%.0f / %.0f MB) | %s |\n", r, rw.SteadyRSSMB,
		floor.SteadyRSSMB, metOr(r <= 1.2))
	v := rw.VerdictSec - rw.ListedSec
	fmt.Fprintf(b, "| first complete verdict <= 5 s after informer sync | %.1f s | %s |\n", v, metOr(v <= 5))
	lists, watches := rw.AtStart.maxPerResource("LIST"), rw.AtStart.maxPerResource("WATCH(open)")
	fmt.Fprintf(b, "| one list and one watch per resource at start | at most %.0f LIST, %.0f open WATCH per resource | %s |\n",
		lists, watches, metOr(lists <= 1 && watches <= 1))
	// Counted from the restart, the API server's own loopback clients (which
	// list and watch ConfigMaps, Services, Nodes, EndpointSlices) are in both
	// rows: one list more than the floor's per resource is one list each.
	al, fl := rw.AfterOutage.maxPerResource("LIST"), floor.AfterOutage.maxPerResource("LIST")
	fmt.Fprintf(b, "| no relist storm after the outage | at most %.0f LIST per resource in %s (floor: %.0f) | %s |\n",
		al, c.Options.After, fl, metOr(al <= fl+1))
	if ch := rw.Churn; ch != nil && len(ch.AlertMs) > 0 {
		p99 := percentile(ch.AlertMs, 99)
		fmt.Fprintf(b, "| Node delete -> alert p99 <= 1 s under churn | %.0f ms (n = %d, %d missed) | %s |\n", p99,
			len(ch.AlertMs), ch.Missed, metOr(p99 <= 1000 && ch.Missed == 0))
	} else {
		fmt.Fprintf(b, "| Node delete -> alert p99 <= 1 s under churn | not measured in this run | – |\n")
	}
}

// plotCluster draws each watcher's RSS against seconds since its start.
func plotCluster(res *Results, path string) error {
	const W, H, left, right, top, bottom = 1140, 520, 90, 330, 50, 70
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	xmax, ymax := 10.0, 10.0
	for _, p := range res.Cluster.Procs {
		xmax = max(xmax, float64(len(p.RSS)))
		for _, v := range p.RSS {
			ymax = max(ymax, v)
		}
	}
	ystep := math.Pow(10, math.Floor(math.Log10(ymax)))
	ymax = math.Ceil(ymax/ystep) * ystep
	xstep := math.Pow(10, math.Floor(math.Log10(xmax)))
	xmax = math.Ceil(xmax/xstep) * xstep
	px := func(x float64) int { return left + int(x/xmax*float64(W-left-right)) }
	py := func(y float64) int { return H - bottom - int(y/ymax*float64(H-top-bottom)) }
	black, grey := color.RGBA{0, 0, 0, 255}, color.RGBA{225, 225, 225, 255}
	for x := 0.0; x <= xmax; x += xstep {
		line(img, px(x), top, px(x), H-bottom, grey, 1)
		l := fmt.Sprintf("%.0f", x)
		drawText(img, px(x)-textWidth(l, 2)/2, H-bottom+10, 2, l, black)
	}
	for y := 0.0; y <= ymax; y += ystep {
		line(img, left, py(y), W-right, py(y), grey, 1)
		l := fmt.Sprintf("%.0f", y)
		drawText(img, left-10-textWidth(l, 2), py(y)-7, 2, l, black)
	}
	line(img, left, top, left, H-bottom, black, 2)
	line(img, left, H-bottom, W-right, H-bottom, black, 2)
	title := fmt.Sprintf("RSS WATCHING %d NODES, %d SERVICES", res.Cluster.Options.Nodes, res.Cluster.Options.Services)
	drawText(img, left+60, 8, 2, title, black)
	drawText(img, (left+W-right)/2-textWidth("SECONDS SINCE START", 2)/2, H-30, 2, "SECONDS SINCE START", black)
	drawText(img, 5, top-22, 2, "MB", black)
	colors := []color.RGBA{{40, 90, 200, 255}, {200, 30, 30, 255}, {150, 150, 150, 255}}
	ly := top + 10
	for i, p := range res.Cluster.Procs {
		c := colors[i%len(colors)]
		for k := 1; k < len(p.RSS); k++ {
			line(img, px(float64(k-1)), py(p.RSS[k-1]), px(float64(k)), py(p.RSS[k]), c, 2)
		}
		ly = legend(img, W-right, ly, c, strings.ToUpper(p.Name))
	}
	return savePNG(img, path)
}
