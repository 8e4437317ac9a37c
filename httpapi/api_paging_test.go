package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/validator"
)

// TestRoutesPaging walks a 1,200-route table page by page: the default page
// is 500 routes, the continue tokens chain every route exactly once, a token
// survives the table changing before it, and one whose route is gone is 410.
func TestRoutesPaging(t *testing.T) {
	var table []validator.Route
	attrs := &validator.Attributes{NextHop: netip.MustParseAddr("10.0.0.11"), Peer: netip.MustParseAddr("127.0.1.1")}
	for i := range 1200 {
		table = append(table, validator.Route{Prefix: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8),
			byte(i), 0}), 24), Attributes: attrs})
	}
	src := testSources(true)
	current := table
	src.Routes = func() []validator.Route { return current }
	srv := httptest.NewServer(New("127.0.0.1:0", src, prometheus.NewRegistry(), zerolog.Nop()).Handler())
	defer srv.Close()
	fetch := func(query string) (int, routesResponse) {
		t.Helper()
		code, body := get(t, srv.URL+"/api/v1/routes"+query)
		var r routesResponse
		if code == 200 {
			if err := json.Unmarshal([]byte(body), &r); err != nil {
				t.Fatal(err)
			}
		}
		return code, r
	}

	var seen []string
	var sizes []int
	for q := ""; ; {
		code, r := fetch(q)
		if code != 200 || r.Total != len(table) {
			t.Fatalf("%q: %d, total %d", q, code, r.Total)
		}
		sizes = append(sizes, len(r.Routes))
		for _, x := range r.Routes {
			seen = append(seen, x.Prefix)
		}
		if r.Continue == "" {
			break
		}
		q = "?continue=" + url.QueryEscape(r.Continue)
	}
	if !slices.Equal(sizes, []int{500, 500, 200}) || len(seen) != len(table) || seen[0] != "10.0.0.0/24" ||
		seen[1199] != table[1199].Prefix.String() {
		t.Fatalf("pages of %v, %d routes", sizes, len(seen))
	}

	_, first := fetch("?limit=100")
	cases := []struct {
		name  string
		table []validator.Route
		code  int
		next  string // the first prefix of the next page
	}{
		{"unchanged", table, 200, table[100].Prefix.String()},
		{"routes removed before the cursor", table[50:], 200, table[100].Prefix.String()},
		{"routes added before the cursor", append(slices.Clone(table[:10]), table...), 200, table[100].Prefix.String()},
		{"the cursor's route is gone", slices.Delete(slices.Clone(table), 99, 100), 410, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			current = tc.table
			code, r := fetch("?limit=100&continue=" + url.QueryEscape(first.Continue))
			if code != tc.code || code == 200 && r.Routes[0].Prefix != tc.next {
				t.Errorf("%d %v, want %d starting at %s", code, r.Routes[:min(1, len(r.Routes))], tc.code, tc.next)
			}
		})
	}
	current = table
	// A token pages the query it came from: other filters are a 400, another
	// limit is not.
	for q, want := range map[string]int{"?limit=7&": 200, "?prefix=10.0.0.0/8&": 400, "?peer=127.0.1.1&limit=100&": 400} {
		if code, _ := fetch(q + "continue=" + url.QueryEscape(first.Continue)); code != want {
			t.Errorf("%scontinue=<token of ?limit=100>: %d, want %d", q, code, want)
		}
	}
	_, filtered := fetch("?limit=100&peer=127.0.1.1")
	if code, r := fetch("?peer=127.0.1.1&limit=100&continue=" + url.QueryEscape(filtered.Continue)); code != 200 ||
		r.Routes[0].Prefix != table[100].Prefix.String() {
		t.Errorf("the filtered token with its filter again (in another order): %d", code)
	}
	if code, r := fetch(fmt.Sprintf("?limit=%d", maxLimit)); code != 200 || len(r.Routes) != 1200 || r.Continue != "" {
		t.Errorf("limit=%d: %d, %d routes, continue %q", maxLimit, code, len(r.Routes), r.Continue)
	}
}
