package report

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		name, text string
		width      int
		want       string
	}{
		{"fits", "one two three", 80, "  one two three\n"},
		{"wraps with continuation indent", "aaaa bbbb cccc", 11, "  aaaa bbbb\n    cccc\n"},
		{"long word stays whole", "short averyveryverylongword end", 12, "  short\n    averyveryverylongword\n    end\n"},
		{"collapses whitespace", "a \n\t b", 80, "  a b\n"},
		{"empty", "", 80, "  \n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			wrap(&b, tt.text, "  ", tt.width)
			if got := b.String(); got != tt.want {
				t.Errorf("wrap(%q, %d) = %q, want %q", tt.text, tt.width, got, tt.want)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]int
		want string
	}{
		{"none", map[string]int{}, ""},
		{"severity order", map[string]int{"info": 1, "critical": 2, "warning": 3}, "2 critical, 3 warning, 1 info"},
		{"zero counts left out", map[string]int{"critical": 0, "warning": 1}, "1 warning"},
		{"unknown severities last, sorted", map[string]int{"zeta": 1, "alpha": 2, "info": 1}, "1 info, 2 alpha, 1 zeta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := counts(tt.in); got != tt.want {
				t.Errorf("counts(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func finding(rule validator.RuleID, sev validator.Severity, prefix, node, owner string) validator.Finding {
	return validator.Finding{Rule: rule, Severity: sev, Prefix: netip.MustParsePrefix(prefix), Node: node,
		Owner: owner, Message: "message for " + prefix, Hint: "hint for " + prefix}
}

func TestExplain(t *testing.T) {
	summary := validator.Summary{Nodes: 2, CiliumNodes: 2, Routes: 3, Prefixes: 3, IPAMMode: validator.IPAMClusterPool,
		IPAMModeSource: "cilium-config"}
	tests := []struct {
		name     string
		findings []validator.Finding
		want     []string // substrings, in order
		absent   []string
	}{
		{
			name: "no findings",
			want: []string{"Checked 3 routes (3 prefixes) against 2 nodes and 2 CiliumNodes; IPAM cluster-pool (cilium-config).",
				"No findings: every route matches the cluster's allocations."},
			absent: []string{"finding(s)"},
		},
		{
			name: "grouped by node, stale group titled, owner shown when it differs",
			findings: []validator.Finding{
				finding("stale-route", validator.SeverityCritical, "10.0.9.0/24", "", "gone"),
				finding("foreign-cidr", validator.SeverityCritical, "10.0.2.0/24", "node-a", "node-b"),
				finding("missing-route", validator.SeverityWarning, "10.0.1.0/24", "node-a", "node-a"),
			},
			want: []string{
				"No current node (stale route, unknown origin or Service VIP)\n", "CRITICAL stale-route", "10.0.9.0/24  owner gone",
				"  message for 10.0.9.0/24", "  hint: hint for 10.0.9.0/24",
				"Node node-a\n───────────\n", "CRITICAL foreign-cidr", "10.0.2.0/24  owner node-b",
				"WARNING  missing-route", "3 finding(s): 2 critical, 1 warning.",
			},
			absent: []string{"10.0.1.0/24  owner", "No findings"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := summary
			s.Findings = len(tt.findings)
			s.BySeverity = map[string]int{}
			for _, f := range tt.findings {
				s.BySeverity[f.Severity.String()]++
			}
			var buf bytes.Buffer
			if err := Explain(&buf, Report{Result: validator.Result{Findings: tt.findings, Summary: s}}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			rest := out
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order) in:\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tt.absent {
				if strings.Contains(out, a) {
					t.Errorf("output has %q:\n%s", a, out)
				}
			}
			for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
				if n := len([]rune(line)); n > Width && !strings.HasPrefix(line, "Checked") {
					t.Errorf("line is %d runes, wider than %d: %q", n, Width, line)
				}
			}
		})
	}
}

func TestJSONEmptyFindingsIsArray(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, validator.Result{}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Findings json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, buf.String())
	}
	if string(got.Findings) != "[]" {
		t.Errorf("findings = %s, want []", got.Findings)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	in := validator.Result{Findings: []validator.Finding{finding("foreign-cidr", validator.SeverityCritical, "10.0.2.0/24", "a", "b")}}
	var buf bytes.Buffer
	if err := JSON(&buf, in); err != nil {
		t.Fatal(err)
	}
	var out validator.Result
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatalf("decoding: %v\n%s", err, buf.String())
	}
	if len(out.Findings) != 1 || out.Findings[0] != in.Findings[0] {
		t.Errorf("round trip = %+v, want %+v", out.Findings, in.Findings)
	}
}

func TestCompactTable(t *testing.T) {
	long := finding("foreign-cidr", validator.SeverityCritical, "10.0.2.0/24", "node-a", "node-b")
	long.Message = strings.Repeat("word ", 40)
	r := Report{Result: validator.Result{Findings: []validator.Finding{
		finding("stale-route", validator.SeverityCritical, "10.0.9.0/24", "", "gone"), long},
		Summary: validator.Summary{Findings: 2, BySeverity: map[string]int{"critical": 2}}},
		Notes: []string{"a note"}}
	tests := []struct {
		name  string
		width int
		wide  bool
		want  []string
	}{
		{"narrow terminal", 80, false, []string{"SEVERITY  RULE          PREFIX       NODE    MESSAGE\n",
			"critical  stale-route   10.0.9.0/24  -       message for 10.0.9.0/24\n", "word word…\n",
			"2 finding(s): 2 critical. -o explain", "Note: a note\n"}},
		{"wide", 0, true, []string{"NEXT HOP  PEER  OWNER   MESSAGE\n", "-         -     gone    message for",
			strings.TrimSpace(strings.Repeat("word ", 40)) + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			var err error
			if tt.wide {
				err = Wide(&buf, r)
			} else {
				err = Table(&buf, r, tt.width)
			}
			if err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if n := len([]rune(line)); tt.width > 0 && n > tt.width && !strings.HasPrefix(line, "Checked") {
					t.Errorf("line of %d runes in a %d-column table: %q", n, tt.width, line)
				}
			}
		})
	}
}
