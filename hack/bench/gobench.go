package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// GoBench is one line of `go test -bench` output.
type GoBench struct {
	Package string             `json:"package"`
	Name    string             `json:"name"`
	Iters   int64              `json:"iterations"`
	Metrics map[string]float64 `json:"metrics"` // unit → value (ns/op, B/op, allocs/op, custom)
}

// Detection is cmd/routewarden's BenchmarkDetection JSON (schema_version 1).
type Detection struct {
	Trials       int `json:"trials"`
	Measurements []struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		TargetP99   *float64 `json:"target_p99_ms"`
		Met         *bool    `json:"met"`
		Trials      int      `json:"trials"`
		P50         float64  `json:"p50_ms"`
		P99         float64  `json:"p99_ms"`
		Min         float64  `json:"min_ms"`
		Max         float64  `json:"max_ms"`
	} `json:"measurements"`
}

// Machine describes where the run happened.
type Machine struct {
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"`
	Memory string `json:"memory"`
	Kernel string `json:"kernel"`
	Go     string `json:"go"`
	Load   string `json:"load"`
}

func machine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				m.CPU = strings.TrimSpace(l[strings.Index(l, ":")+1:])
				break
			}
		}
	}
	if out, err := exec.Command("free", "-h").Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "Mem:") {
				if f := strings.Fields(l); len(f) > 1 {
					m.Memory = f[1]
				}
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.Load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return m
}

// goBenchmarks runs the engine benchmarks, the BMP station's (when present)
// and the detection-latency benchmark (when present), and returns their
// results with the output of go test (benchstat reads it as it is). A failing
// benchmark is noted and returned in failed: the run fails on it, at any size
// (a benchmark that fails measures nothing, and a note is easily missed).
func goBenchmarks(ctx context.Context, quick bool) (all []GoBench, det *Detection, raw []byte, notes, failed []string) {
	// Three runs of each, reported by their median: a single run on a shared
	// machine can be off by half (one BMP station run read 1.0M prefixes/s
	// between runs of 2.0M).
	extra := []string{"-count", "3"}
	if quick {
		extra = []string{"-benchtime", "1x"}
	}
	pkgs := []string{"./validator/..."}
	if hasBenchmarks("bgp/bmp") {
		pkgs = append(pkgs, "./bgp/bmp/")
	} else {
		notes = append(notes, "bgp/bmp has no benchmarks yet: BMP station not measured")
	}
	for _, pkg := range pkgs {
		args := append([]string{"test", "-run", "^$", "-bench", ".", "-benchmem"}, extra...)
		out, err := goCmd(ctx, nil, append(args, pkg)...)
		raw = append(raw, out...)
		all = append(all, medianBenches(parseGoBench(out))...)
		if err != nil {
			msg := fmt.Sprintf("go test -bench %s failed: %v: %s", pkg, err, tail(out, 800))
			notes, failed = append(notes, msg), append(failed, msg)
		}
	}
	det, note := detection(ctx, quick)
	if note != "" {
		notes = append(notes, note)
	}
	return all, det, raw, notes, failed
}

func detection(ctx context.Context, quick bool) (*Detection, string) {
	files, _ := filepath.Glob("cmd/routewarden/*detection*_test.go")
	if len(files) == 0 {
		return nil, "no detection-latency benchmark in cmd/routewarden yet"
	}
	f, err := os.CreateTemp("", "detection-*.json")
	if err != nil {
		return nil, err.Error()
	}
	f.Close()
	defer os.Remove(f.Name())
	trials := "50"
	if quick {
		trials = "2"
	}
	env := []string{"ROUTEWARDEN_DETECT_TRIALS=" + trials, "ROUTEWARDEN_DETECT_OUT=" + f.Name()}
	out, err := goCmd(ctx, env, "test", "-run", "^$", "-bench", "Detection", "-benchtime", "1x", "./cmd/routewarden/")
	if err != nil {
		return nil, fmt.Sprintf("detection benchmark failed: %v: %s", err, tail(out, 800))
	}
	b, err := os.ReadFile(f.Name())
	if err != nil || len(b) == 0 {
		return nil, "detection benchmark wrote no results (skipped? KUBE_APISERVER, ETCD and Alertmanager are needed)"
	}
	var d Detection
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Sprintf("detection results: %v", err)
	}
	return &d, ""
}

func goCmd(ctx context.Context, env []string, args ...string) ([]byte, error) {
	fmt.Fprintf(os.Stderr, "bench: go %s\n", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), env...)
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	err := cmd.Run()
	return buf.Bytes(), err
}

func hasBenchmarks(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte("func Benchmark")) {
			return true
		}
	}
	return false
}

// parseGoBench reads "pkg:" lines and benchmark result lines.
func parseGoBench(out []byte) []GoBench {
	var res []GoBench
	pkg := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "pkg:" {
			pkg = f[1]
			continue
		}
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		iters, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		b := GoBench{Package: pkg, Name: name, Iters: iters, Metrics: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				b.Metrics[f[i+1]] = v
			}
		}
		res = append(res, b)
	}
	return res
}

// medianBenches joins the runs of each benchmark (-count) into one, each
// metric its median (the mean of the middle two for an even count).
func medianBenches(runs []GoBench) []GoBench {
	var out []GoBench
	values := map[string]map[string][]float64{}
	for _, r := range runs {
		key := r.Package + " " + r.Name
		if values[key] == nil {
			values[key] = map[string][]float64{}
			out = append(out, r)
		}
		for unit, v := range r.Metrics {
			values[key][unit] = append(values[key][unit], v)
		}
	}
	for i := range out {
		m := map[string]float64{}
		for unit, vs := range values[out[i].Package+" "+out[i].Name] {
			slices.Sort(vs)
			m[unit] = (vs[(len(vs)-1)/2] + vs[len(vs)/2]) / 2
		}
		out[i].Metrics = m
	}
	return out
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
