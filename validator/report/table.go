package report

import (
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// minMessage is the narrowest the message column gets before lines overflow.
const minMessage = 24

// Table writes one line per finding (severity, rule, prefix, node and the
// message cut to fit width), then a summary line and the notes.
func Table(w io.Writer, r Report, width int) error {
	return table(w, r, width, false)
}

// Wide writes one line per finding with every field (next hop, peer, owner)
// and the whole message, whatever the width.
func Wide(w io.Writer, r Report) error {
	return table(w, r, 0, true)
}

func table(w io.Writer, r Report, width int, wide bool) error {
	b := &strings.Builder{}
	if len(r.Findings) > 0 {
		head := []string{"SEVERITY", "RULE", "PREFIX", "NODE"}
		if wide {
			head = append(head, "NEXT HOP", "PEER", "OWNER")
		}
		rows := [][]string{append(head, "MESSAGE")}
		for _, f := range r.Findings {
			row := []string{f.Severity.String(), string(f.Rule), f.Prefix.String(), dash(f.Node)}
			if wide {
				row = append(row, dash(addr(f.NextHop)), dash(addr(f.Peer)), dash(f.Owner))
			}
			rows = append(rows, append(row, f.Message))
		}
		writeRows(b, rows, width)
		b.WriteString("\n")
	}
	b.WriteString(summaryLine(r.Summary, r.Notes) + "\n")
	for _, n := range r.Notes {
		b.WriteString("Note: " + n + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRows aligns the columns; the last one is cut to fit width (0: never).
func writeRows(b *strings.Builder, rows [][]string, width int) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row[:len(row)-1] {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	used := 0
	for _, n := range widths[:len(widths)-1] {
		used += n + 2
	}
	for _, row := range rows {
		line := &strings.Builder{}
		for i, cell := range row[:len(row)-1] {
			fmt.Fprintf(line, "%-*s  ", widths[i], cell)
		}
		last := row[len(row)-1]
		if width > 0 {
			last = cut(last, max(width-used, minMessage))
		}
		b.WriteString(strings.TrimRight(line.String()+last, " ") + "\n")
	}
}

// cut shortens s to n runes, ending with an ellipsis when it was longer.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// summaryLine says what was checked and found, in two lines.
func summaryLine(s validator.Summary, notes []string) string {
	checked := fmt.Sprintf("Checked %d routes (%d prefixes) against %d nodes and %d CiliumNodes; IPAM %s (%s).",
		s.Routes, s.Prefixes, s.Nodes, s.CiliumNodes, s.IPAMMode, s.IPAMModeSource)
	if s.Findings == 0 {
		return checked + "\n" + noFindings(notes)
	}
	return fmt.Sprintf("%s\n%d finding(s): %s. -o explain says why and what to do.", checked, s.Findings,
		counts(s.BySeverity))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func addr(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// noFindings says there is no finding, and whether the notes limit what was checked.
func noFindings(notes []string) string {
	if len(notes) > 0 {
		return "No findings in what was checked (see the notes)."
	}
	return "No findings: every route matches the cluster's allocations."
}
