package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// shownPage is what the page shows of one paged table: its data rows' keys,
// and its pager ("" when hidden) with which of Previous and Next work.
type shownPage struct {
	keys       []string
	pager      string
	prev, next bool
}

func readPage(d *dom, table, key, pager string) shownPage {
	var p shownPage
	for _, r := range d.rows(table) {
		if r.attr[key] != "" && !r.hidden {
			p.keys = append(p.keys, r.attr[key])
		}
	}
	if !d.hidden("p-" + pager) {
		_, inner := d.element("p-" + pager)
		p.pager = d.text("p-" + pager)
		p.prev = !strings.Contains(inner, `data-dir="prev" disabled`)
		p.next = !strings.Contains(inner, `data-dir="next" disabled`)
	}
	return p
}

// TestStatusPagePaging renders clusters of 250 nodes in Chromium and checks
// that each table (findings, nodes, peers, BMP paths) shows one page of rows,
// problems first, with its pager; that
// a page in the URL (?nodes=, ?findings=) is the one shown, a page whose row is
// gone starts again, the filters ask the API, and a link to a row on another
// page pins it.
func TestStatusPagePaging(t *testing.T) {
	one := func() Sources { return scaleNodes(250, func(i int) bool { return i == 7 }) }
	// 125 missing CIDRs: two pages of findings.
	half := func() Sources { return scaleNodes(250, func(i int) bool { return i%2 == 1 }) }
	// Every route seen over BMP by a ToR, whose policy dropped 10.0.200.0/24.
	bmp := func() Sources {
		src := one()
		src.RouteViews = func(view string) []RouteView {
			var out []RouteView
			for _, r := range src.Routes() {
				if view == "pre-policy" || view == "post-policy" && r.Prefix != pfx("10.0.200.0/24") {
					out = append(out, RouteView{Router: ip("127.0.0.1"), View: view, Route: r})
				}
			}
			return out
		}
		return src
	}
	// continueAt is the token of the page after limit rows of the API's problems-first list.
	continueAt := func(t *testing.T, srv *httptest.Server, list string, limit string) string {
		_, body := get(t, srv.URL+"/api/v1/"+list+"?order=problems&limit="+limit)
		var r struct{ Continue string }
		if err := json.Unmarshal([]byte(body), &r); err != nil || r.Continue == "" {
			t.Fatalf("%s: no continue token in %.200s", list, body)
		}
		return url.QueryEscape(r.Continue)
	}
	cases := []struct {
		name  string
		src   func() Sources
		url   func(t *testing.T, srv *httptest.Server) string
		table string // "findings", "nodes" or "peers"
		count int    // rows shown
		first string // the first row's key (its node, peer or prefix)
		pager string // "" for hidden
		prev  bool
		next  bool
	}{
		{"first page of nodes", one, nil, "nodes", 100, "node-00007", "rows 1–100 of 250, problems first", false, true},
		{"first page of peers", one, nil, "peers", 100, "172.16.0.0", "rows 1–100 of 250, problems first", false, true},
		{"one finding, no pager", one, nil, "findings", 1, "10.0.7.0/24", "", false, false},
		{"second page of nodes", one, func(t *testing.T, srv *httptest.Server) string {
			return "?nodes=100:" + continueAt(t, srv, "nodes", "100")
		}, "nodes", 100, "node-00100", "Previous rows 101–200 of 250, problems first Next ›", true, true},
		{"last page of nodes", one, func(t *testing.T, srv *httptest.Server) string {
			return "?nodes=200:" + continueAt(t, srv, "nodes", "200")
		}, "nodes", 50, "node-00200", "rows 201–250 of 250, problems first", true, false},
		{"a token whose row is gone", one, func(*testing.T, *httptest.Server) string {
			return "?nodes=100:eyJvIjoxMDAsImsiOiJub2RlLTk5OTk5In0"
		}, "nodes", 100, "node-00007", "rows 1–100 of 250, problems first", false, true},
		{"only problems", one, func(*testing.T, *httptest.Server) string { return "?only=problems" },
			"nodes", 1, "node-00007", "", false, false},
		{"only problems: no peer", one, func(*testing.T, *httptest.Server) string { return "?only=problems" },
			"peers", 0, "", "", false, false},
		{"search", one, func(*testing.T, *httptest.Server) string { return "?q=node-0024" },
			"nodes", 10, "node-00240", "", false, false},
		{"search, peers", one, func(*testing.T, *httptest.Server) string { return "?q=node-0024" },
			"peers", 10, "172.16.0.240", "", false, false},
		{"a link to a node on another page", one, func(*testing.T, *httptest.Server) string { return "#node-node-00222" },
			"nodes", 101, "node-00222", "rows 1–100 of 250, problems first", false, true},
		{"first page of findings", half, nil, "findings", 100, "", "rows 1–100 of 125, worst first", false, true},
		{"second page of findings", half, func(*testing.T, *httptest.Server) string { return "?findings=100" },
			"findings", 25, "", "Previous rows 101–125 of 125, worst first Next ›", true, false},
		{"problem nodes lead", half, nil, "nodes", 100, "node-00001", "rows 1–100 of 250, problems first", false, true},
		{"BMP paths, dropped first", bmp, nil, "views-table", 100, "10.0.200.0/24", "rows 1–100 of 249, dropped first",
			false, true},
		{"BMP paths, last page", bmp, func(*testing.T, *httptest.Server) string { return "?views=200" }, "views-table", 49,
			"", "rows 201–249 of 249", true, false},
	}
	keys := map[string]string{"findings": "prefix", "nodes": "node", "peers": "peer", "views-table": "prefix"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(New("127.0.0.1:0", tc.src(), prometheus.NewRegistry(),
				zerolog.Nop()).Handler())
			defer srv.Close()
			query := ""
			if tc.url != nil {
				query = tc.url(t, srv)
			}
			d := parseDOM(string(chromium(t, srv.URL+"/"+query, "--virtual-time-budget=4000", "--dump-dom")))
			if d.body["state"] != "ok" {
				t.Fatalf("page state %q: %s", d.body["state"], d.text("error"))
			}
			p := readPage(d, tc.table, keys[tc.table], strings.TrimSuffix(tc.table, "-table"))
			first := ""
			if len(p.keys) > 0 {
				first = p.keys[0]
			}
			if len(p.keys) != tc.count || tc.first != "" && first != tc.first || !strings.Contains(p.pager, tc.pager) ||
				(tc.pager == "") != (p.pager == "") || p.prev != tc.prev || p.next != tc.next {
				t.Errorf("%s: %d rows from %q, pager %q (previous %v, next %v); want %d from %q, pager %q (%v, %v)",
					tc.table, len(p.keys), first, p.pager, p.prev, p.next, tc.count, tc.first, tc.pager, tc.prev, tc.next)
			}
		})
	}
}
