// Package httpapi serves routewarden's read-only HTTP endpoints: a status page
// at /, /metrics, /healthz, /readyz and JSON under /api/v1 (findings,
// transitions, routes, peers, nodes, roas;
// described by /api/v1/openapi.json).
// Nothing it serves can change state, and no secret is ever part of a response.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// Sources provide what the API shows; each is called per request.
type Sources struct {
	State  func() monitor.State
	Routes func() []validator.Route
	// RouteViews returns the paths of one view of the BMP-monitored peers
	// ("pre-policy", "post-policy", "loc-rib"); nil when there is no BMP.
	RouteViews func(view string) []RouteView
	Peers      func() []Peer
	// Cluster is the cluster's current truth (routes and peers are attributed
	// to nodes with it); an error while the inventory is unavailable.
	Cluster func() (*validator.Cluster, error)
	// Transitions are the last findings that fired or resolved, oldest first
	// (metrics.Observer.Transitions); nil lists none.
	Transitions func() []monitor.Transition
	// Links are the runbook and Alertmanager URLs findings link to.
	Links Links
	// RTR returns the RTR server's state (roas.go); nil, or returning nil, while it is off.
	RTR func() any
	// Ready says whether routewarden can be trusted yet, and why not.
	Ready func() (bool, string)
	// Now is the clock the answers are stamped with; nil means time.Now.
	Now func() time.Time
	// Convergence is the loop's convergence tracking (api_convergence.go);
	// nil lists nothing.
	Convergence func() monitor.Convergence
}

// Server is the HTTP listener.
type Server struct {
	addr     string
	src      Sources
	gatherer prometheus.Gatherer
	log      zerolog.Logger
	listener net.Listener
}

// New prepares a server on addr (host:port).
func New(addr string, src Sources, gatherer prometheus.Gatherer, log zerolog.Logger) *Server {
	return &Server{addr: addr, src: src, gatherer: gatherer, log: log.With().Str("component", "http").Logger()}
}

// Listen binds the address, so that errors surface before anything else starts.
func (s *Server) Listen() error {
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("listening for HTTP on %s: %w", s.addr, err)
	}
	s.listener = l
	return nil
}

// Addr is the bound address (after Listen).
func (s *Server) Addr() string { return s.listener.Addr().String() }

// Handler returns the routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.status)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if ok, why := s.src.Ready(); !ok {
			http.Error(w, "not ready: "+why, http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /api/v1/openapi.json", serveOpenAPI)
	for _, e := range s.endpoints() {
		mux.HandleFunc("GET "+e.path, func(w http.ResponseWriter, r *http.Request) {
			q, err := parseQuery(e.path, r.URL.Query(), e.params)
			if err != nil {
				writeError(w, err)
				return
			}
			e.serve(w, q)
		})
	}
	mux.HandleFunc("GET /api/v1/roas", s.roas)
	return mux
}

// endpoint is one JSON list under /api/v1: its path, the filters it takes
// (besides limit and continue) and its handler. openapi.json documents each.
type endpoint struct {
	path   string
	params []param
	serve  func(http.ResponseWriter, query)
}

func (s *Server) endpoints() []endpoint {
	return []endpoint{
		{"/api/v1/findings", findingParams, s.findings},
		{"/api/v1/transitions", transitionParams, s.transitions},
		{"/api/v1/routes", routeParams, s.routes},
		{"/api/v1/peers", peerParams, s.peers},
		{"/api/v1/nodes", nodeParams, s.nodes},
		{"/api/v1/convergence", convergenceParams, s.convergence},
	}
}

// Run serves until ctx ends, then shuts down gracefully.
func (s *Server) Run(ctx context.Context) error {
	if s.listener == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.listener) }()
	s.log.Info().Str("addr", s.listener.Addr().String()).Msg("serving metrics and API")
	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutting down HTTP: %w", err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// FindingURL links to a finding's row on the status page, for an alert's
// generatorURL (a person follows it; the row links the finding's JSON).
func FindingURL(base string, f validator.Finding) string {
	return base + "/#" + url.PathEscape(FindingAnchor(f))
}

// FindingAnchor is the id of a finding's row on the status page (status.js's
// findingID): finding-<rule>-<prefix>[-<node>].
func FindingAnchor(f validator.Finding) string {
	id := "finding-" + string(f.Rule) + "-" + f.Prefix.String()
	if f.Node != "" {
		id += "-" + f.Node
	}
	return id
}
