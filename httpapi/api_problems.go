package httpapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// The filters that keep the status page bounded at thousands of nodes: ?q=
// (words), ?problems= and ?order=problems on /nodes and /peers, so that the
// page asks for one page of rows, problems first, instead of every row.

func orderNames() []string { return []string{"name", "problems"} }

var (
	searchParam   = param{name: "q"}
	problemsParam = param{name: "problems", check: checkBool}
	orderParam    = param{name: "order", valid: orderNames}
)

// matchWords says whether every word of q (split on spaces, any case)
// appears in one of texts; the status page's search box means the same.
func matchWords(q string, texts ...string) bool {
	if q == "" {
		return true
	}
	all := strings.ToLower(strings.Join(texts, " "))
	for _, w := range strings.Fields(strings.ToLower(q)) {
		if !strings.Contains(all, w) {
			return false
		}
	}
	return true
}

// matchProblems applies ?problems= (validated before) to whether an item is a problem.
func matchProblems(q query, problem bool) bool {
	return q.Get("problems") == "" || problem == (q.Get("problems") == "true")
}

// verdict is what the problems-first order and ?problems= read of an item:
// its rank (0 first) and whether it is a problem.
type verdict struct {
	rank    int
	problem bool
}

// nodeJudge rates nodes against the current findings the way the status page
// draws them: wrong (announces a prefix a finding flags and it was not
// allocated), missing (an allocated prefix is missing-route), then the rest
// by how many findings name them; a node is a problem when it is wrong or
// missing, a finding names it, or it is not a Ready, Cilium-managed Node.
type nodeJudge struct {
	byNode  map[string][]validator.Finding
	flagged map[string]bool // prefixes flagged by a finding naming no node
}

func newNodeJudge(findings []monitor.Tracked) nodeJudge {
	j := nodeJudge{byNode: map[string][]validator.Finding{}, flagged: map[string]bool{}}
	for _, t := range findings {
		f := t.Finding
		switch {
		case f.Node != "":
			j.byNode[f.Node] = append(j.byNode[f.Node], f)
		case f.Rule != validator.RuleMissingRoute:
			j.flagged[f.Prefix.String()] = true
		}
	}
	return j
}

func (j nodeJudge) judge(n nodeJSON) verdict {
	nf := j.byNode[n.Name]
	flagged, missing := map[string]bool{}, map[string]bool{}
	for _, f := range nf {
		if f.Rule == validator.RuleMissingRoute {
			missing[f.Prefix.String()] = true
		} else {
			flagged[f.Prefix.String()] = true
		}
	}
	status := 2
	for _, p := range n.Allocated {
		if missing[p] && !slices.Contains(n.Announced, p) {
			status = 1
		}
	}
	for _, p := range n.Announced {
		if (flagged[p] || j.flagged[p]) && !slices.Contains(n.Allocated, p) {
			status = 0
		}
	}
	notes := nodeNotes(n)
	// Within a status, more findings first: the rank leaves room for 10,000 a node.
	return verdict{rank: status*10000 - min(len(nf), 9999), problem: status < 2 || len(nf) > 0 || len(notes) > 0}
}

// nodeNotes are the page's notes on a node that is not a Ready, Cilium-managed Node.
func nodeNotes(n nodeJSON) []string {
	switch {
	case !n.Current:
		return []string{"no Node object"}
	case !n.Ready && !n.Managed:
		return []string{"NotReady", "no CiliumNode"}
	case !n.Ready:
		return []string{"NotReady"}
	case !n.Managed:
		return []string{"no CiliumNode"}
	}
	return nil
}

// searchText is what ?q= matches in a node: its name, notes, addresses,
// prefixes, the rules of its findings and its peers.
func (j nodeJudge) searchText(n nodeJSON) []string {
	out := slices.Concat([]string{n.Name}, nodeNotes(n), n.Addresses, n.Allocated, n.Announced, n.Peers)
	for _, f := range j.byNode[n.Name] {
		out = append(out, string(f.Rule))
	}
	return out
}

// judgePeer rates a peer as the page does: sessions down first, then those
// still waiting for End-of-RIB; either, or a graceful restart, is a problem.
func judgePeer(p peerJSON) verdict {
	complete := len(p.EndOfRIB) > 0
	for _, f := range p.Families {
		complete = complete && slices.Contains(p.EndOfRIB, f)
	}
	rank := 0
	if p.State == "established" {
		rank = 1
		if complete {
			rank = 2
		}
	}
	return verdict{rank: rank, problem: rank < 2 || p.StaleUntil != ""}
}

// peerSearchText is what ?q= matches in a peer.
func peerSearchText(p peerJSON) []string {
	out := []string{p.Address, p.Node, p.State, p.RouterID}
	if p.ASN != 0 {
		out = append(out, fmt.Sprintf("AS%d", p.ASN))
	}
	if p.BMP != nil {
		out = append(out, p.BMP.SysName)
	}
	return out
}

// sortByVerdict puts items in ?order=problems order (rank, then key), stable
// for the continue tokens; for order=name (the default) it leaves them.
func sortByVerdict[T any](q query, items []T, v []verdict, key func(T) string) []T {
	if q.Get("order") != "problems" {
		return items
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if v[a].rank != v[b].rank {
			return v[a].rank - v[b].rank
		}
		return strings.Compare(key(items[a]), key(items[b]))
	})
	out := make([]T, len(items))
	for i, k := range idx {
		out[i] = items[k]
	}
	return out
}
