// Package report renders validation results for people (a one-line-per-finding
// table sized to the terminal, a wide table, and an 80-column explanation
// grouped by node) and for programs (JSON). It writes to an io.Writer and
// nothing else.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// Width is the explanation's line width.
const Width = 80

// Report is what check prints: the engine's result and notes about its input
// (such as a family the route dumps do not cover), each said once.
type Report struct {
	validator.Result
	Notes []string `json:"notes,omitempty"`
}

// JSON writes {"findings":[…],"summary":{…}}.
func JSON(w io.Writer, res validator.Result) error {
	if res.Findings == nil {
		res.Findings = []validator.Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// Explain writes findings grouped by node, worst first within a node, each
// with its message and hint wrapped at Width, then the notes.
func Explain(w io.Writer, r Report) error {
	res := r.Result
	b := &strings.Builder{}
	s := res.Summary
	fmt.Fprintf(b, "Checked %d routes (%d prefixes) against %d nodes and %d CiliumNodes; IPAM %s (%s).\n",
		s.Routes, s.Prefixes, s.Nodes, s.CiliumNodes, s.IPAMMode, s.IPAMModeSource)
	if len(res.Findings) == 0 {
		b.WriteString("\n" + noFindings(r.Notes) + "\n")
		writeNotes(b, r.Notes)
		_, err := io.WriteString(w, b.String())
		return err
	}
	node := "\x00"
	for _, f := range res.Findings {
		if f.Node != node {
			node = f.Node
			title := "Node " + node
			if node == "" {
				title = "No current node (stale route, unknown origin or Service VIP)"
			}
			fmt.Fprintf(b, "\n%s\n%s\n", title, strings.Repeat("─", min(len([]rune(title)), Width)))
		}
		head := fmt.Sprintf("%-8s %-16s %s", strings.ToUpper(f.Severity.String()), f.Rule, f.Prefix)
		if f.Owner != "" && f.Owner != f.Node {
			head += "  owner " + f.Owner
		}
		b.WriteString(head + "\n")
		wrap(b, f.Message, "  ", Width)
		if f.Hint != "" {
			wrap(b, "hint: "+f.Hint, "  ", Width)
		}
	}
	fmt.Fprintf(b, "\n%d finding(s): %s.\n", s.Findings, counts(s.BySeverity))
	writeNotes(b, r.Notes)
	_, err := io.WriteString(w, b.String())
	return err
}

func counts(m map[string]int) string {
	order := []string{"critical", "warning", "info"}
	var parts []string
	for _, k := range order {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
		}
	}
	var rest []string
	for k := range m {
		if k != "critical" && k != "warning" && k != "info" {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

// wrap writes text indented and wrapped at width; words longer than a line stay whole.
func wrap(b *strings.Builder, text, indent string, width int) {
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent + "  "
		}
		if len(line) > len(indent) && !strings.HasSuffix(line, " ") {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
}

// writeNotes writes each note wrapped at Width, after a blank line.
func writeNotes(b *strings.Builder, notes []string) {
	for _, n := range notes {
		b.WriteString("\n")
		wrap(b, "Note: "+n, "", Width)
	}
}
