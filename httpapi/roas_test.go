package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// TestROAs: /api/v1/roas is 404 while the RTR server is off, its state when
// on, and 400 for a query parameter (it takes none).
func TestROAs(t *testing.T) {
	on := func() any { return map[string]any{"serial": 7} }
	for _, tc := range []struct {
		name     string
		rtr      func() any
		query    string
		code     int
		contains string
	}{
		{"no source", nil, "", http.StatusNotFound, "rtr.enabled"},
		{"off", func() any { return nil }, "", http.StatusNotFound, "rtr.enabled"},
		{"on", on, "", http.StatusOK, `"serial": 7`},
		{"unknown parameter", on, "?limit=5", http.StatusBadRequest, `unknown parameter \"limit\"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(New("127.0.0.1:0", Sources{RTR: tc.rtr}, prometheus.NewRegistry(), zerolog.Nop()).Handler())
			defer srv.Close()
			code, body := get(t, srv.URL+"/api/v1/roas"+tc.query)
			if code != tc.code || !strings.Contains(body, tc.contains) {
				t.Errorf("%d %q, want %d containing %q", code, body, tc.code, tc.contains)
			}
		})
	}
}
