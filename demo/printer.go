package demo

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/routewarden/routewarden/monitor"
)

// Printer shows transitions as they happen: the demo's live view.
type Printer struct {
	mu    sync.Mutex
	Out   io.Writer
	Start time.Time
}

// Observe implements monitor.Observer.
func (p *Printer) Observe(_ monitor.State, transitions []monitor.Transition) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range transitions {
		f := t.Finding
		what := "FIRED   "
		if t.Kind == monitor.Resolved {
			what = "RESOLVED"
		}
		node := f.Node
		if node == "" {
			node = "(no node)"
		}
		fmt.Fprintf(p.Out, "  %6.1fs %s %-8s %-16s %-15s %s\n", t.At.Sub(p.Start).Seconds(), what,
			f.Severity, f.Rule, f.Prefix, node)
		if t.Kind == monitor.Fired {
			fmt.Fprintf(p.Out, "          %s\n", wrap(f.Message, 90, "          "))
		}
	}
}

func wrap(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && n+len(w)+1 > width {
			b.WriteString("\n" + indent)
			n = 0
		} else if i > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
