package httpapi

import (
	_ "embed" // the status page is compiled into the binary
	"net/http"
	"strconv"
	"strings"
	"time"
)

// statusPage is the status page: one self-contained HTML document (inline CSS
// and JavaScript, no external asset, no build step) that reads the JSON API.
// Its script is kept in status.js, status_pager.js, status_views.js and
// status_known.js, inlined where status.html marks them.
var statusPage = []byte(strings.NewReplacer("/*status.js*/", string(statusJS), "/*status_pager.js*/",
	string(statusPagerJS), "/*status_views.js*/", string(statusViewsJS), "/*status_known.js*/",
	string(statusKnownJS)).Replace(string(statusHTML)))

var (
	//go:embed status.html
	statusHTML []byte
	//go:embed status.js
	statusJS []byte
	//go:embed status_pager.js
	statusPagerJS []byte
	//go:embed status_views.js
	statusViewsJS []byte
	//go:embed status_known.js
	statusKnownJS []byte
)

// statusCSP lets the page run its own inline script and style and talk to its
// own origin, and nothing else: a browser enforces that it loads no external
// asset. Its filter form may reload the page itself (?q=&only=).
const statusCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
	"connect-src 'self'; img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// apiTime is how the API writes instants.
const apiTime = "2006-01-02T15:04:05.000Z07:00"

// status serves the status page at / (GET and HEAD).
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(statusPage)))
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Security-Policy", statusCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(statusPage)
}

// now is the server's clock.
func (s *Server) now() time.Time {
	if s.src.Now != nil {
		return s.src.Now()
	}
	return time.Now()
}
