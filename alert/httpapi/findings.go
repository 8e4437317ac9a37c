package httpapi

import (
	"net/http"
	"net/netip"

	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/continuous"
)

type findingsResponse struct {
	At        string                     `json:"at"`
	Now       string                     `json:"now"` // when answered: clients compute ages from it, not their clock
	WarmingUp bool                       `json:"warmingUp"`
	Frozen    bool                       `json:"frozen"`
	Inventory continuous.InventoryStatus `json:"inventory"`
	Summary   validator.Summary          `json:"summary"`
	Findings  []continuous.Tracked       `json:"findings"`
}

// findings lists tracked findings; ?rule=, ?node=, ?prefix= and ?firing=true filter.
func (s *Server) findings(w http.ResponseWriter, r *http.Request) {
	st := s.src.State()
	q := r.URL.Query()
	out := findingsResponse{At: st.At.Format(apiTime), Now: s.now().Format(apiTime), WarmingUp: st.WarmingUp,
		Frozen: st.Frozen, Inventory: st.Inventory, Summary: st.Summary, Findings: []continuous.Tracked{}}
	for _, f := range st.Findings {
		if q.Get("rule") != "" && string(f.Rule) != q.Get("rule") || q.Get("node") != "" && f.Node != q.Get("node") ||
			q.Get("prefix") != "" && f.Prefix.String() != q.Get("prefix") || q.Get("firing") == "true" && !f.Firing {
			continue
		}
		out.Findings = append(out.Findings, f)
	}
	writeJSON(w, out)
}

// routes lists received routes; ?prefix= (exact or containing) and ?peer= filter.
func (s *Server) routes(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var want netip.Prefix
	if p := q.Get("prefix"); p != "" {
		var err error
		if want, err = netip.ParsePrefix(p); err != nil {
			http.Error(w, "prefix: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	out := []validator.Route{}
	for _, rt := range s.src.Routes() {
		if want.IsValid() && !want.Overlaps(rt.Prefix) || q.Get("peer") != "" && rt.Attrs().Peer.String() != q.Get("peer") {
			continue
		}
		out = append(out, rt)
	}
	writeJSON(w, out)
}
