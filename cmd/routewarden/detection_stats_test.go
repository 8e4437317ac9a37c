package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"
)

// pollUntil calls cond every interval until it reports true, and returns when
// the answer that said so was received. It gives up after timeout.
func pollUntil(interval, timeout time.Duration, cond func() (bool, error)) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		start := time.Now()
		ok, err := cond()
		at := time.Now()
		if err == nil && ok {
			return at, nil
		}
		if err != nil {
			last = err
		}
		if at.After(deadline) {
			return at, fmt.Errorf("not within %s (last error: %v)", timeout, last)
		}
		if d := interval - at.Sub(start); d > 0 {
			time.Sleep(d)
		}
	}
}

// firingFinding asks routewarden's API for the firing finding of rule for
// prefix, and returns when it was first seen (the validation's time).
func firingFinding(client *http.Client, api, rule, prefix string) (firstSeen time.Time, found bool, err error) {
	resp, err := client.Get(api + "/api/v1/findings?firing=true&rule=" + rule + "&prefix=" + prefix)
	if err != nil {
		return time.Time{}, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return time.Time{}, false, fmt.Errorf("GET /api/v1/findings: %s", resp.Status)
	}
	var f struct {
		Findings []struct {
			FirstSeen time.Time `json:"firstSeen"`
		} `json:"findings"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&f); err != nil {
		return time.Time{}, false, err
	}
	if len(f.Findings) == 0 {
		return time.Time{}, false, nil
	}
	return f.Findings[0].FirstSeen, true, nil
}

// detectionStats summarises one measurement's samples, in milliseconds.
type detectionStats struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	TargetP99MS *float64  `json:"target_p99_ms"`
	Met         *bool     `json:"met"`
	Trials      int       `json:"trials"`
	P50MS       float64   `json:"p50_ms"`
	P99MS       float64   `json:"p99_ms"`
	MinMS       float64   `json:"min_ms"`
	MaxMS       float64   `json:"max_ms"`
	MeanMS      float64   `json:"mean_ms"`
	SamplesMS   []float64 `json:"samples_ms"`
}

// summarise computes the statistics; a target of 0 means none.
func summarise(name, description string, target time.Duration, samples []time.Duration) detectionStats {
	s := detectionStats{Name: name, Description: description, Trials: len(samples)}
	ms := make([]float64, len(samples))
	for i, d := range samples {
		ms[i] = math.Round(float64(d)/1e3) / 1e3 // ms with µs precision
	}
	s.SamplesMS = slices.Clone(ms)
	slices.Sort(ms)
	if len(ms) > 0 {
		s.P50MS, s.P99MS = percentile(ms, 0.50), percentile(ms, 0.99)
		s.MinMS, s.MaxMS = ms[0], ms[len(ms)-1]
		sum := 0.0
		for _, v := range ms {
			sum += v
		}
		s.MeanMS = math.Round(sum/float64(len(ms))*1e3) / 1e3
	}
	if target > 0 {
		t := float64(target) / 1e6
		met := len(ms) > 0 && s.P99MS <= t
		s.TargetP99MS, s.Met = &t, &met
	}
	return s
}

// percentile of sorted values, interpolating linearly between closest ranks
// (numpy's default): with 50 samples p99 lies between the two largest.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 1 {
		return sorted[0]
	}
	pos := p * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	v := sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
	return math.Round(v*1e3) / 1e3
}

// detectionReport is the JSON written to $ROUTEWARDEN_DETECT_OUT.
type detectionReport struct {
	Benchmark    string           `json:"benchmark"`
	SchemaVer    int              `json:"schema_version"`
	StartedAt    time.Time        `json:"started_at"`
	DurationS    float64          `json:"duration_s"`
	GoVersion    string           `json:"go_version"`
	GOOS         string           `json:"goos"`
	GOARCH       string           `json:"goarch"`
	CPUs         int              `json:"cpus"`
	Trials       int              `json:"trials"`
	Config       map[string]any   `json:"config"`
	Measurements []detectionStats `json:"measurements"`
}

func writeDetectionReport(path string, r detectionReport) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the detection results: %w", err)
	}
	return nil
}

// TestDetectionSummarise checks the benchmark's statistics (the benchmark
// itself only runs with -bench).
func TestDetectionSummarise(t *testing.T) {
	ms := func(vs ...float64) []time.Duration {
		out := make([]time.Duration, len(vs))
		for i, v := range vs {
			out[i] = time.Duration(v * float64(time.Millisecond))
		}
		return out
	}
	var oneToFifty []float64
	for i := 50; i >= 1; i-- {
		oneToFifty = append(oneToFifty, float64(i))
	}
	tests := []struct {
		name                   string
		samples                []time.Duration
		target                 time.Duration
		p50, p99, lo, hi, mean float64
		wantTarget             bool // target_p99_ms and met present
		met                    bool
	}{
		{"one sample", ms(7.25), 0, 7.25, 7.25, 7.25, 7.25, 7.25, false, false},
		{"fifty, unordered", ms(oneToFifty...), 50 * time.Millisecond, 25.5, 49.51, 1, 50, 25.5, true, true},
		{"target missed", ms(10, 20, 300), 100 * time.Millisecond, 20, 294.4, 10, 300, 110, true, false},
		{"rounded to µs", ms(2, 1.2346, 1.2344), 0, 1.235, 1.985, 1.234, 2, 1.49, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := summarise("m", "d", tc.target, tc.samples)
			got := []float64{s.P50MS, s.P99MS, s.MinMS, s.MaxMS, s.MeanMS}
			want := []float64{tc.p50, tc.p99, tc.lo, tc.hi, tc.mean}
			for i, name := range []string{"p50", "p99", "min", "max", "mean"} {
				if math.Abs(got[i]-want[i]) > 1e-9 {
					t.Errorf("%s = %v, want %v", name, got[i], want[i])
				}
			}
			if s.Trials != len(tc.samples) || len(s.SamplesMS) != len(tc.samples) {
				t.Errorf("trials %d, %d samples kept; want %d", s.Trials, len(s.SamplesMS), len(tc.samples))
			}
			if (s.Met != nil) != tc.wantTarget || (s.TargetP99MS != nil) != tc.wantTarget {
				t.Fatalf("target present %v/%v, want %v", s.TargetP99MS != nil, s.Met != nil, tc.wantTarget)
			}
			if tc.wantTarget && *s.Met != tc.met {
				t.Errorf("met = %v, want %v", *s.Met, tc.met)
			}
		})
	}
}
