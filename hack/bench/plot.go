package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
)

type series struct {
	name string
	c    color.RGBA
	pts  [][2]float64 // N, seconds
}

var routesRE = regexp.MustCompile(`routes=(\d+)`)

// plotSeries: IPv4 ingest with the raw sender (medians) and the engine's
// BenchmarkValidate, seconds against N.
func plotSeries(res *Results) []series {
	gs := groups(res.Trials)
	out := []series{
		{name: "routewarden verdict", c: color.RGBA{200, 30, 30, 255}},
		{name: "routewarden held", c: color.RGBA{240, 130, 40, 255}},
		{name: "routewarden no-validation held", c: color.RGBA{170, 110, 60, 255}},
		{name: "gobgpd held", c: color.RGBA{30, 90, 200, 255}},
		{name: "bird held", c: color.RGBA{30, 150, 60, 255}},
		{name: "routewarden bmp station held", c: color.RGBA{20, 170, 170, 255}},
		{name: "engine (BenchmarkValidate)", c: color.RGBA{120, 40, 160, 255}},
	}
	for _, t := range res.Trials {
		if t.Family != "ipv4" || t.Sender != "raw" {
			continue
		}
		g := gs[t.Collector+"|raw|"+t.Workload]
		if g == nil {
			continue
		}
		add := func(i int, xs []float64) {
			if s, ok := statOf(xs); ok && !slices.ContainsFunc(out[i].pts, func(p [2]float64) bool { return p[0] == float64(t.N) }) {
				out[i].pts = append(out[i].pts, [2]float64{float64(t.N), s.med})
			}
		}
		switch t.Collector {
		case "routewarden":
			add(0, g.verdict)
			add(1, g.held)
		case "routewarden-noval":
			add(2, g.held)
		case "gobgpd":
			add(3, g.held)
		case "bird":
			add(4, g.held)
		case "routewarden-bmp":
			add(5, g.held)
		}
	}
	for _, g := range res.GoBench {
		m := routesRE.FindStringSubmatch(g.Name)
		if m == nil || g.Name[:min(len(g.Name), len("BenchmarkValidate/"))] != "BenchmarkValidate/" {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		out[6].pts = append(out[6].pts, [2]float64{float64(n), g.Metrics["ns/op"] / 1e9})
	}
	for i := range out {
		slices.SortFunc(out[i].pts, func(a, b [2]float64) int { return int(a[0] - b[0]) })
	}
	return out
}

// plot draws docs/bench.png: log-log, seconds against N.
func plot(res *Results, path string) error {
	const W, H, left, right, top, bottom = 1140, 560, 90, 430, 50, 70
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	ss := plotSeries(res)
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, p := range s.pts {
			if p[1] <= 0 {
				continue
			}
			xmin, xmax = min(xmin, math.Log10(p[0])), max(xmax, math.Log10(p[0]))
			ymin, ymax = min(ymin, math.Log10(p[1])), max(ymax, math.Log10(p[1]))
		}
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax, ymin, ymax = 3, 6, -3, 1
	}
	xmin, xmax = math.Floor(xmin), math.Max(math.Ceil(xmax), math.Floor(xmin)+1)
	ymin, ymax = math.Floor(ymin), math.Max(math.Ceil(ymax), math.Floor(ymin)+1)
	px := func(x float64) int { return left + int((math.Log10(x)-xmin)/(xmax-xmin)*float64(W-left-right)) }
	py := func(y float64) int { return H - bottom - int((math.Log10(y)-ymin)/(ymax-ymin)*float64(H-top-bottom)) }
	black, grey := color.RGBA{0, 0, 0, 255}, color.RGBA{225, 225, 225, 255}
	for e := xmin; e <= xmax; e++ {
		x := px(math.Pow(10, e))
		line(img, x, top, x, H-bottom, grey, 1)
		l := decade(e, true)
		drawText(img, x-textWidth(l, 2)/2, H-bottom+10, 2, l, black)
	}
	for e := ymin; e <= ymax; e++ {
		y := py(math.Pow(10, e))
		line(img, left, y, W-right, y, grey, 1)
		l := decade(e, false)
		drawText(img, left-10-textWidth(l, 2), y-7, 2, l, black)
	}
	line(img, left, top, left, H-bottom, black, 2)
	line(img, left, H-bottom, W-right, H-bottom, black, 2)
	drawText(img, left+60, 8, 2, "IPV4 INGEST (RAW SENDER) AND ENGINE TIME AGAINST N", black)
	drawText(img, (left+W-right)/2-textWidth("N PREFIXES (LOG)", 2)/2, H-30, 2, "N PREFIXES (LOG)", black)
	drawText(img, 5, top-22, 2, "SECONDS", black)
	ly := top + 10
	for _, s := range ss {
		if len(s.pts) == 0 {
			continue
		}
		for i, p := range s.pts {
			x, y := px(p[0]), py(p[1])
			draw.Draw(img, image.Rect(x-4, y-4, x+5, y+5), image.NewUniform(s.c), image.Point{}, draw.Src)
			if i > 0 {
				line(img, px(s.pts[i-1][0]), py(s.pts[i-1][1]), x, y, s.c, 2)
			}
		}
		ly = legend(img, W-right, ly, s.c, s.name)
	}
	return savePNG(img, path)
}

// legend draws a legend entry (a line of colour c and its name) at x, y and
// returns the y of the next entry.
func legend(img *image.RGBA, x, y int, c color.RGBA, name string) int {
	line(img, x+15, y+6, x+40, y+6, c, 3)
	drawText(img, x+48, y, 2, name, color.RGBA{0, 0, 0, 255})
	return y + 24
}

func savePNG(img *image.RGBA, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return png.Encode(f, img)
}

func decade(e float64, count bool) string {
	v := math.Pow(10, e)
	if count {
		switch {
		case v >= 1e6:
			return fmt.Sprintf("%gM", v/1e6)
		case v >= 1e3:
			return fmt.Sprintf("%gK", v/1e3)
		}
		return fmt.Sprintf("%g", v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// line draws a straight line of the given thickness (Bresenham).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color, width int) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	err := dx + dy
	for {
		for i := 0; i < width; i++ {
			for j := 0; j < width; j++ {
				img.Set(x0+i-width/2, y0+j-width/2, c)
			}
		}
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * err
		if e2 >= dy {
			err += dy
			x0 += sx
		}
		if e2 <= dx {
			err += dx
			y0 += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
