package httpapi

import (
	"net/http"
	"slices"
	"time"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator/convergence"
)

type convergencePage struct {
	Now      string       `json:"now"`
	Budgets  budgetsJSON  `json:"budgets"`
	Changes  []changeJSON `json:"changes"`
	Total    int          `json:"total"`
	Continue string       `json:"continue"`
}

// budgetsJSON are the convergence budgets in seconds.
type budgetsJSON struct {
	PodCIDRAnnounce float64 `json:"podCidrAnnounce"`
	PodCIDRWithdraw float64 `json:"podCidrWithdraw"`
	VIPAnnounce     float64 `json:"vipAnnounce"`
	VIPWithdraw     float64 `json:"vipWithdraw"`
}

// changeJSON is one route change the cluster asked for: pending (seconds is
// how long it has waited so far) or completed (seconds is how long it took).
type changeJSON struct {
	State     string  `json:"state"`
	Type      string  `json:"type"`
	Direction string  `json:"direction"`
	Prefix    string  `json:"prefix"`
	Node      string  `json:"node"`
	Since     string  `json:"since"`
	At        string  `json:"at"`
	Seconds   float64 `json:"seconds"`
	Budget    float64 `json:"budgetSeconds"`
	Slow      bool    `json:"slow"`
}

var convergenceParams = []param{
	{name: "state", valid: func() []string { return []string{"pending", "completed"} }},
	{name: "type", valid: func() []string { return []string{string(convergence.PodCIDR), string(convergence.VIP)} }},
	{name: "direction", valid: func() []string {
		return []string{string(convergence.Announce), string(convergence.Withdraw)}
	}},
	{name: "node"}, {name: "prefix", check: checkPrefix}}

// convergence lists the pending route changes (oldest first), then the
// completed ones (newest first).
func (s *Server) convergence(w http.ResponseWriter, q query) {
	var c monitor.Convergence
	if s.src.Convergence != nil {
		c = s.src.Convergence()
	}
	now := s.now()
	var sel []changeJSON
	add := func(ch changeJSON) {
		if (q.Get("state") == "" || ch.State == q.Get("state")) && (q.Get("type") == "" || ch.Type == q.Get("type")) &&
			(q.Get("direction") == "" || ch.Direction == q.Get("direction")) &&
			(q.Get("node") == "" || ch.Node == q.Get("node")) &&
			(q.Get("prefix") == "" || ch.Prefix == mustPrefix(q.Get("prefix"))) {
			sel = append(sel, ch)
		}
	}
	for _, p := range c.Pending {
		ch := changeOut("pending", p, c.Budgets, now.Sub(p.Since))
		ch.Slow = ch.Budget > 0 && ch.Seconds > ch.Budget
		add(ch)
	}
	for _, d := range slices.Backward(c.Completed) {
		ch := changeOut("completed", d.Change, c.Budgets, d.Duration)
		ch.At, ch.Slow = timeText(d.At), ch.Budget > 0 && ch.Seconds > ch.Budget
		add(ch)
	}
	pg, next, err := page(sel, q, func(ch changeJSON) string {
		return ch.State + "|" + ch.Since + "|" + ch.Type + "|" + ch.Prefix + "|" + ch.Node + "|" + ch.Direction
	})
	if err != nil {
		writeError(w, err)
		return
	}
	b := c.Budgets
	writeJSON(w, convergencePage{Now: timeText(now), Changes: append([]changeJSON{}, pg...), Total: len(sel),
		Continue: next, Budgets: budgetsJSON{PodCIDRAnnounce: b.PodCIDRAnnounce.Seconds(),
			PodCIDRWithdraw: b.PodCIDRWithdraw.Seconds(), VIPAnnounce: b.VIPAnnounce.Seconds(),
			VIPWithdraw: b.VIPWithdraw.Seconds()}})
}

func changeOut(state string, c convergence.Change, b convergence.Budgets, took time.Duration) changeJSON {
	return changeJSON{State: state, Type: string(c.Key.Kind), Direction: string(c.Direction),
		Prefix: c.Key.Prefix.String(), Node: c.Key.Node, Since: timeText(c.Since), Seconds: max(took, 0).Seconds(),
		Budget: b.For(c.Key.Kind, c.Direction).Seconds()}
}
