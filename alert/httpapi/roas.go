package httpapi

import "net/http"

// roas serves /api/v1/roas: the RTR server's ROA set, serial and connected
// routers (Sources.RTR), or 404 while the RTR server is off.
func (s *Server) roas(w http.ResponseWriter, _ *http.Request) {
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
