package interop

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const rwHTTP = "127.0.0.1:9479" // in the ToR namespace: nothing else listens there

// startRoutewarden runs `routewarden run` in the ToR namespace: a passive peer on port 179 of the
// bridge for every node (dynamic neighbors 10.0.0.0/24 and fd00::/64, any AS), or with viaToR the
// BMP station of FRR playing the ToR there, graceful restart on
// (Cilium sends End-of-RIB only then, which ends the warm-up), hold-down 0 so that any finding,
// even a momentary one, shows; scope is its cluster.nodeSelector.
func (l *lab) startRoutewarden(scope string, viaToR bool) {
	l.t.Helper()
	// Directly: a passive peer of every node on the bridge. Behind the ToR: a BMP station, its BGP
	// listener on loopback with nobody to peer.
	bgp := fmt.Sprintf(`listenAddresses: [%s, "%s"]
  listenPort: 179
  dynamicNeighbors: [{prefix: 10.0.0.0/24}, {prefix: "fd00::/64"}]`, torV4, torV6)
	if viaToR {
		bgp = fmt.Sprintf(`listenAddresses: [127.0.0.1]
  listenPort: 1790
  dynamicNeighbors: [{prefix: 127.0.1.0/24}]
  bmp: {listen: "127.0.0.1:%d"}`, bmpPort)
	}
	cfg := fmt.Sprintf(`cluster: {name: cilium-interop, nodeSelector: %s}
bgp:
  asn: 65000
  routerId: 10.0.0.1
  %s
  gracefulRestart: {enabled: true}
kubernetes: {kubeconfig: %s}
validation: {holdDown: 0s, warmupTimeout: 20s}
http: {listen: "%s"}
`, scope, bgp, l.kubeconfig, rwHTTP)
	f := filepath.Join(l.dir, "routewarden.yaml")
	if err := os.WriteFile(f, []byte(cfg), 0o600); err != nil {
		l.t.Fatal(err)
	}
	l.start("routewarden", "", os.Getenv("ROUTEWARDEN_BIN"), "run", "--config", f, "--log-format", "json")
}

// finding is what a scenario compares of routewarden's findings.
type finding struct {
	Rule    string `json:"rule"`
	Prefix  string `json:"prefix"`
	Node    string `json:"node"`
	Message string `json:"message"`
}

func (f finding) key() string { return f.Rule + " " + f.Prefix + " " + f.Node }

// route is one path routewarden received, as /api/v1/routes shows it.
type route struct {
	Prefix           string   `json:"prefix"`
	Node             string   `json:"node"`
	NextHop          string   `json:"nextHop"`
	Peer             string   `json:"peer"`
	ASPath           []uint32 `json:"asPath"`
	Communities      []string `json:"communities"`
	LargeCommunities []string `json:"largeCommunities"`
}

func (r route) String() string {
	s := fmt.Sprintf("%s node=%s nh=%s peer=%s as-path=%v", r.Prefix, cmpOr(r.Node, "-"), r.NextHop, r.Peer, r.ASPath)
	if len(r.Communities) > 0 {
		s += " communities=" + strings.Join(r.Communities, ",")
	}
	if len(r.LargeCommunities) > 0 {
		s += " large=" + strings.Join(r.LargeCommunities, ",")
	}
	return s
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// verdict is routewarden's view at one moment.
type verdict struct {
	WarmingUp bool
	Findings  []finding
	Routes    []route
}

// keys are the findings as "rule prefix node", sorted.
func (v verdict) keys() []string {
	var out []string
	for _, f := range v.Findings {
		out = append(out, f.key())
	}
	slices.Sort(out)
	return out
}

// poll reads routewarden's findings and routes.
func poll() (verdict, error) {
	var f struct {
		WarmingUp bool      `json:"warmingUp"`
		Findings  []finding `json:"findings"`
	}
	if err := getJSON("http://"+rwHTTP+"/api/v1/findings?limit=5000", &f); err != nil {
		return verdict{}, err
	}
	var r struct {
		Routes []route `json:"routes"`
	}
	if err := getJSON("http://"+rwHTTP+"/api/v1/routes?limit=5000", &r); err != nil {
		return verdict{}, err
	}
	return verdict{WarmingUp: f.WarmingUp, Findings: f.Findings, Routes: r.Routes}, nil
}

var httpClient = &http.Client{Timeout: 5 * time.Second}

func getJSON(url string, into any) error {
	resp, err := httpClient.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(into)
}
