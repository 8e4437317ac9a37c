package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// TestStatusPageServed checks how / is served, and that adding it changed no
// other route.
func TestStatusPageServed(t *testing.T) {
	sc := allClear()
	srv := httptest.NewServer(New("127.0.0.1:0", sc.sources(), prometheus.NewRegistry(), zerolog.Nop()).Handler())
	defer srv.Close()
	cases := []struct {
		method, path string
		code         int
		contentType  string
		body         string // a substring of the body; "" for an empty body
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", "<title>routewarden status</title>"},
		{"HEAD", "/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/status", 404, "text/plain; charset=utf-8", "404 page not found"},
		{"GET", "/index.html", 404, "text/plain; charset=utf-8", "404 page not found"},
		{"GET", "/api/v1/nope", 404, "text/plain; charset=utf-8", "404 page not found"},
		{"POST", "/", 405, "text/plain; charset=utf-8", "Method Not Allowed"},
		{"GET", "/api/v1/findings", 200, "application/json", `"now": "2026-11-22T05:00:00.000Z"`},
		{"GET", "/api/v1/nodes", 200, "application/json", `"allocated": [`},
		{"GET", "/healthz", 200, "text/plain; charset=utf-8", "ok"},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.code || resp.Header.Get("Content-Type") != tc.contentType {
				t.Fatalf("%d %q, want %d %q", resp.StatusCode, resp.Header.Get("Content-Type"), tc.code, tc.contentType)
			}
			if tc.body == "" && len(b) != 0 || !strings.Contains(string(b), tc.body) {
				t.Errorf("body %.300q, want it to contain %q", b, tc.body)
			}
			if tc.path == "/" && tc.code == 200 {
				if resp.Header.Get("Content-Security-Policy") != statusCSP || resp.ContentLength != int64(len(statusPage)) {
					t.Errorf("CSP %q, length %d", resp.Header.Get("Content-Security-Policy"), resp.ContentLength)
				}
			}
		})
	}
}

// TestStatusPageSelfContained checks that the page refers to nothing outside
// itself but the API, with relative URLs (so that it works behind a path
// prefix), and never turns data into HTML.
func TestStatusPageSelfContained(t *testing.T) {
	page := string(statusPage)
	for _, bad := range []string{"http://", "https://", "//cdn", "<link", "src=", "@import", "url(", "<iframe", ".innerHTML",
		`href="/`, `"/api/`} {
		if strings.Contains(page, bad) {
			t.Errorf("the status page contains %q: it must not load or inject anything", bad)
		}
	}
	for _, must := range []string{`<th scope="col">`, `role="alert"`, `lang="en"`, "api/v1/findings", "api/v1/nodes", "api/v1/peers"} {
		if !strings.Contains(page, must) {
			t.Errorf("the status page lacks %q", must)
		}
	}
}
