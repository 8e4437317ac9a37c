package httpapi

import (
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

type routesResponse struct {
	Routes   []routeJSON `json:"routes"`
	Total    int         `json:"total"`
	Continue string      `json:"continue"`
}

type peersResponse struct {
	Peers    []peerJSON `json:"peers"`
	Total    int        `json:"total"`
	Continue string     `json:"continue"`
}

type nodesResponse struct {
	Nodes    []nodeJSON `json:"nodes"`
	Total    int        `json:"total"`
	Continue string     `json:"continue"`
}

var routeParams = []param{{name: "node"}, {name: "peer", check: checkAddr}, {name: "prefix", check: checkPrefix},
	{name: "view", valid: func() []string { return routeViews }}}
var peerParams = []param{{name: "node"}, {name: "peer", check: checkAddr}, {name: "state"}, searchParam,
	problemsParam, orderParam}
var nodeParams = []param{{name: "node"}, searchParam, problemsParam, orderParam}

func mustPrefix(s string) string { return netip.MustParsePrefix(s).String() }
func mustAddr(s string) string   { return netip.MustParseAddr(s).String() }

// snapshot indexes the cluster to attribute routes and peers to nodes; nil
// while the inventory is unavailable.
func (s *Server) snapshot() (*validator.Snapshot, error) {
	if s.src.Cluster == nil {
		return nil, nil
	}
	c, err := s.src.Cluster()
	if err != nil || c == nil {
		return nil, err
	}
	return validator.NewSnapshot(c, nil, validator.PolicyView{}, validator.Options{}), nil
}

// unavailable answers 503 when a filter needs the inventory and it is away.
func unavailable(err error) *apiError {
	msg := "the cluster inventory is unavailable"
	if err != nil {
		msg += ": " + err.Error()
	}
	return &apiError{status: http.StatusServiceUnavailable, msg: msg}
}

// routes lists received routes in the table's order; ?prefix= matches the
// routes overlapping it (equal, inside or covering).
func (s *Server) routes(w http.ResponseWriter, q query) {
	snap, err := s.snapshot()
	if snap == nil && q.Get("node") != "" {
		writeError(w, unavailable(err))
		return
	}
	nodeOf := func(r validator.Route) string {
		if snap == nil {
			return ""
		}
		return snap.Attribute(r).Name()
	}
	var want netip.Prefix
	if p := q.Get("prefix"); p != "" {
		want = netip.MustParsePrefix(p)
	}
	all, views := s.viewRoutes(q.Get("view"))
	sel := all
	if want.IsValid() || q.Get("peer") != "" || q.Get("node") != "" {
		sel = nil
		for _, r := range all {
			if (!want.IsValid() || want.Overlaps(r.Prefix)) && (q.Get("peer") == "" || addrText(r.Attrs().Peer) ==
				mustAddr(q.Get("peer"))) && (q.Get("node") == "" || nodeOf(r) == q.Get("node")) {
				sel = append(sel, r)
			}
		}
	}
	pg, next, apiErr := page(sel, q, func(r validator.Route) string {
		k := r.Prefix.String() + "|" + addrText(r.Attrs().Peer) + "|" + strconv.FormatUint(uint64(r.PathID), 10)
		if router, ok := views[r.Attributes]; ok {
			k += "|" + addrText(router) // one peer's path as two ToRs monitor it
		}
		return k
	})
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	out := routesResponse{Routes: make([]routeJSON, 0, len(pg)), Total: len(sel), Continue: next}
	for _, r := range pg {
		rj := routeOut(r, nodeOf(r))
		if v, ok := views[r.Attributes]; ok && q.Get("view") != "" {
			rj.View, rj.Router = q.Get("view"), addrText(v)
		}
		out.Routes = append(out.Routes, rj)
	}
	writeJSON(w, out)
}

// viewRoutes returns the routes the rules judge, or, for view, the paths of
// that view of the BMP-monitored peers with each one's router by attribute set.
func (s *Server) viewRoutes(view string) ([]validator.Route, map[*validator.Attributes]netip.Addr) {
	if view == "" {
		return s.src.Routes(), nil
	}
	if s.src.RouteViews == nil {
		return nil, nil
	}
	vs := s.src.RouteViews(view)
	out := make([]validator.Route, len(vs))
	routers := map[*validator.Attributes]netip.Addr{}
	for i, v := range vs {
		out[i] = v.Route
		routers[out[i].Unshare()] = v.Router // shared sets would not tell the routers apart
	}
	return out, routers
}

// peers lists BGP peers, each with the node its address belongs to, by
// address or (?order=problems) sessions down and waiting first.
func (s *Server) peers(w http.ResponseWriter, q query) {
	snap, err := s.snapshot()
	if snap == nil && q.Get("node") != "" {
		writeError(w, unavailable(err))
		return
	}
	var sel []peerJSON
	for _, p := range s.src.Peers() {
		node := ""
		if snap != nil {
			node = snap.NodeAt(p.Address)
		}
		pj := peerOut(p, node)
		if (q.Get("node") == "" || node == q.Get("node")) && (q.Get("peer") == "" ||
			addrText(p.Address) == mustAddr(q.Get("peer"))) && (q.Get("state") == "" || p.State == q.Get("state")) &&
			matchProblems(q, judgePeer(pj).problem) && matchWords(q.Get("q"), peerSearchText(pj)...) {
			sel = append(sel, pj)
		}
	}
	key := func(p peerJSON) string {
		if p.BMP != nil {
			return p.Address + "|" + p.BMP.Router
		}
		return p.Address + "|"
	}
	slices.SortFunc(sel, func(a, b peerJSON) int { return strings.Compare(key(a), key(b)) })
	vs := make([]verdict, len(sel))
	for i, p := range sel {
		vs[i] = judgePeer(p)
	}
	pg, next, apiErr := page(sortByVerdict(q, sel, vs, key), q, key)
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	writeJSON(w, peersResponse{Peers: orEmpty(pg), Total: len(sel), Continue: next})
}

// nodes lists every node's allocations next to what it announces, by name or
// (?order=problems) problems first; 503 while the inventory is unavailable.
func (s *Server) nodes(w http.ResponseWriter, q query) {
	var c *validator.Cluster
	var err error
	if s.src.Cluster != nil {
		c, err = s.src.Cluster()
	}
	if c == nil {
		writeError(w, unavailable(err))
		return
	}
	snap := validator.NewSnapshot(c, nil, validator.PolicyView{}, validator.Options{})
	peersOf := map[string][]string{}
	for _, p := range s.src.Peers() {
		if n := snap.NodeAt(p.Address); n != "" {
			peersOf[n] = append(peersOf[n], addrText(p.Address))
		}
	}
	st := s.src.State()
	judged, frozenSince := judgement(st)
	j := newNodeJudge(st.Findings)
	var sel []nodeJSON
	var vs []verdict
	for _, n := range validator.NodeStatuses(c, s.src.Routes()) {
		nj := nodeOut(n, peersOf[n.Name])
		nj.Judged, nj.FrozenSince = judged, frozenSince
		v := j.judge(nj)
		if (q.Get("node") == "" || n.Name == q.Get("node")) && matchProblems(q, v.problem) &&
			matchWords(q.Get("q"), j.searchText(nj)...) {
			sel, vs = append(sel, nj), append(vs, v)
		}
	}
	key := func(n nodeJSON) string { return n.Name }
	pg, next, apiErr := page(sortByVerdict(q, sel, vs, key), q, key)
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	writeJSON(w, nodesResponse{Nodes: orEmpty(pg), Total: len(sel), Continue: next})
}
