package httpapi

import (
	"maps"
	"net/http"
	"slices"
	"strings"
)

// roas serves /api/v1/roas: the RTR server's ROA set, serial and connected
// routers (Sources.RTR), or 404 while the RTR server is off. It takes no
// query parameters (400 for any, as the other endpoints answer unknown ones).
func (s *Server) roas(w http.ResponseWriter, r *http.Request) {
	if q := r.URL.Query(); len(q) > 0 {
		names := strings.Join(slices.Sorted(maps.Keys(q)), ", ")
		writeError(w, badRequest("unknown parameter %q for /api/v1/roas, which takes none", names))
		return
	}
	var v any
	if s.src.RTR != nil {
		v = s.src.RTR()
	}
	if v == nil {
		http.Error(w, "the RTR server is off (rtr.enabled in the config)", http.StatusNotFound)
		return
	}
	writeJSON(w, v)
}
