package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/cmd/routewarden/cli"
	"github.com/routewarden/routewarden/internal/logbuf"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/testfile"
	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
)

// The harness of the end-to-end tests (run, VIP, reliability, detection): a
// real kube-apiserver and etcd with Cilium's CRDs and nodes, routewarden run
// in-process against it, one real GoBGP speaker per node, and polling of
// routewarden's HTTP API and of Alertmanager. Node i is at 10.0.0.1i, owns
// 10.244.i.0/24 and its speaker peers from 127.0.1.1i (AS 65010).

const e2eCiliumConfig = `apiVersion: v1
kind: ConfigMap
metadata: {name: cilium-config, namespace: kube-system}
data: {ipam: cluster-pool, cluster-pool-ipv4-cidr: 10.244.0.0/16, enable-bgp-control-plane: "true"}
`

// e2eOptions is what differs between the tests' routewarden configs.
type e2eOptions struct {
	Cluster    string        // cluster.name; "e2e" when empty
	Scope      string        // cluster.nodeSelector, a YAML map; none when empty
	Alerting   string        // the body of the alerting section, indented; "" for none
	Debounce   string        // validation.debounce; "" for its default
	Validation string        // more keys of the validation section ("convergence: {...}")
	StopWithin time.Duration // how long run may take to stop once cancelled; 30s when 0
	Extra      string        // appended to the config: sections of their own (rtr)
	Warmup     string        // validation.warmupTimeout; "5s" when empty (see config)
	GR         bool          // bgp.gracefulRestart.enabled (speakers send End-of-RIB only with it)
	StopsAPI   bool          // startE2E: the test stops the API server (an outage): it gets one of its own
}

// e2e is a cluster, the ports routewarden listens on and, once started,
// routewarden run and the nodes' speakers.
type e2e struct {
	env      *testkube.Env
	bgpPort  int32
	httpAddr string
	api      string // routewarden's HTTP API, http://httpAddr
	cfgFile  string
	logs     *logbuf.Buffer
	speakers map[int]*speaker.Speaker
}

// newE2E lends the test a real kube-apiserver and etcd with the CRDs of the
// newest Cilium release (testkube.Shared: other tests use it before or after,
// never at the same time), creates cilium-config (cluster-pool,
// 10.244.0.0/16), nodes 1..n and docs, and picks free ports for routewarden.
func newE2E(tb testing.TB, n int, docs ...string) *e2e {
	tb.Helper()
	return newE2EOn(tb, testkube.NewestCilium(tb), n, docs...)
}

// newE2EOn is newE2E with the CRDs of the Cilium release c.
func newE2EOn(tb testing.TB, c testkube.Cilium, n int, docs ...string) *e2e {
	tb.Helper()
	return newE2EIn(tb, testkube.Shared(tb, c), n, docs...)
}

// newE2EOwn is newE2E on a control plane of the test's own, which it may
// stop and restart.
func newE2EOwn(tb testing.TB, n int, docs ...string) *e2e {
	tb.Helper()
	env := testkube.Start(tb)
	env.InstallCilium(tb, testkube.NewestCilium(tb))
	return newE2EIn(tb, env, n, docs...)
}

// newE2EIn creates the cluster of newE2E in env.
func newE2EIn(tb testing.TB, env *testkube.Env, n int, docs ...string) *e2e {
	tb.Helper()
	all := append([]string{e2eCiliumConfig}, docs...)
	for i := 1; i <= n; i++ {
		all = append(all, testkube.NodeManifest(i), testkube.CiliumNodeManifest(i))
	}
	env.Apply(tb, writeFile(tb, "cluster.yaml", strings.Join(all, "---\n")))
	httpAddr := loopback.FreeAddr(tb)
	return &e2e{env: env, bgpPort: loopback.FreePort(tb), httpAddr: httpAddr, api: "http://" + httpAddr,
		speakers: map[int]*speaker.Speaker{}}
}

// startE2E is newE2E (newE2EOwn when o.StopsAPI) with three nodes,
// routewarden run with o, each node's speaker announcing its CIDR, and a
// healthy cluster waited for.
func startE2E(tb testing.TB, o e2eOptions) *e2e {
	tb.Helper()
	var e *e2e
	if o.StopsAPI {
		e = newE2EOwn(tb, 3)
	} else {
		e = newE2E(tb, 3)
	}
	e.run(tb, o)
	e.startSpeakers(tb, 3)
	e.waitHealthy(tb, 3)
	return e
}

// config is a routewarden config for the cluster: dynamic neighbors from
// 127.0.1.0/24, hold-down 0 (any finding fires at once, so a momentary false
// finding could not hide), and a warm-up of 5 s unless o says otherwise: the
// speakers start after routewarden, and the first verdict must wait for them
// (warm-up from the inventory ends it as soon as they sent End-of-RIB). It was
// 1 s, when the inventory became available only at the API server probe after
// its informers had synced, ~5 s after the start.
func (e *e2e) config(o e2eOptions) string {
	validation := "holdDown: 0s, warmupTimeout: " + cmp.Or(o.Warmup, "5s")
	if o.Debounce != "" {
		validation += ", debounce: " + o.Debounce
	}
	if o.Validation != "" {
		validation += ", " + o.Validation
	}
	alerting := ""
	if o.Alerting != "" {
		alerting = "alerting:\n" + o.Alerting + "\n"
	}
	scope := ""
	if o.Scope != "" {
		scope = ", nodeSelector: " + o.Scope
	}
	return fmt.Sprintf(`cluster: {name: %s%s}
bgp:
  asn: 65000
  routerId: 192.0.2.1
  listenAddresses: [127.0.0.1]
  listenPort: %d
  gracefulRestart: {enabled: %t}
  dynamicNeighbors: [{prefix: 127.0.1.0/24}]
kubernetes: {kubeconfig: %s}
validation: {%s}
%shttp: {listen: "%s"}
%s`, cmp.Or(o.Cluster, "e2e"), scope, e.bgpPort, o.GR, e.env.Kubeconfig, validation, alerting, e.httpAddr, o.Extra)
}

// run writes the config and runs `routewarden run` in the test process until
// the test ends: then it is cancelled (as SIGTERM does) and must exit 0
// within o.StopWithin.
func (e *e2e) run(tb testing.TB, o e2eOptions) {
	tb.Helper()
	within := cmp.Or(o.StopWithin, 30*time.Second)
	e.cfgFile = writeFile(tb, "routewarden.yaml", e.config(o))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	logs := &logbuf.Buffer{}
	e.logs = logs
	go func() {
		done <- cli.Execute(ctx, []string{"run", "--config", e.cfgFile, "--log-format", "json"}, strings.NewReader(""),
			io.Discard, logs)
	}()
	tb.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				tb.Errorf("routewarden run exited %d", code)
			}
		case <-time.After(within):
			tb.Errorf("routewarden run did not stop within %s of cancellation", within)
		}
		if tb.Failed() {
			tb.Logf("routewarden log:\n%s", logs.String())
		}
	})
}

// startSpeakers starts the speakers of nodes 1..n, each announcing its CIDR.
func (e *e2e) startSpeakers(tb testing.TB, n int) {
	tb.Helper()
	for i := 1; i <= n; i++ {
		e.speakers[i] = e.speaker(tb, i, true)
	}
}

// speaker starts node i's GoBGP speaker (127.0.1.1i, AS 65010) towards
// routewarden and announces the node's own CIDR unless announceOwn is false.
// It stops when the test ends, if not before.
func (e *e2e) speaker(tb testing.TB, i int, announceOwn bool) *speaker.Speaker {
	tb.Helper()
	s, err := speaker.Start(context.Background(), speaker.Config{
		Local: netip.MustParseAddr(fmt.Sprintf("127.0.1.%d", 10+i)), ASN: 65010,
		CollectorAddr: netip.MustParseAddr("127.0.0.1"), CollectorPort: e.bgpPort, CollectorASN: 65000}, zerolog.Nop())
	if err != nil {
		tb.Fatal(err)
	}
	var once sync.Once
	tb.Cleanup(func() { once.Do(s.Stop) })
	if announceOwn {
		announce(tb, s, fmt.Sprintf("10.244.%d.0/24", i), i)
	}
	return s
}

// waitHealthy waits until routewarden is ready, warmed up, has routes
// routes and no finding.
func (e *e2e) waitHealthy(tb testing.TB, routes int) {
	tb.Helper()
	wait.For(tb, fmt.Sprintf("a healthy cluster: ready, warmed up, %d routes, no finding", routes), 90*time.Second,
		func() error {
			var f struct {
				WarmingUp bool `json:"warmingUp"`
				Summary   struct {
					Routes int `json:"routes"`
				} `json:"summary"`
				Findings []json.RawMessage `json:"findings"`
			}
			if err := getJSON(e.api+"/api/v1/findings", &f); err != nil {
				return err
			}
			if f.WarmingUp || f.Summary.Routes != routes || len(f.Findings) != 0 {
				return fmt.Errorf("warmingUp %v, routes %d, findings %d", f.WarmingUp, f.Summary.Routes, len(f.Findings))
			}
			return getJSON(e.api+"/readyz", nil)
		})
}

func writeFile(tb testing.TB, name, content string) string { return testfile.Temp(tb, name, content) }

// announce announces prefix with node's next hop, 10.0.0.1node.
func announce(tb testing.TB, s *speaker.Speaker, prefix string, node int) {
	tb.Helper()
	if err := s.Announce(context.Background(), netip.MustParsePrefix(prefix), nodeAddr(node)); err != nil {
		tb.Fatal(err)
	}
}

// withdraw withdraws prefix, announced with node's next hop.
func withdraw(tb testing.TB, s *speaker.Speaker, prefix string, node int) {
	tb.Helper()
	if err := s.Withdraw(context.Background(), netip.MustParsePrefix(prefix), nodeAddr(node)); err != nil {
		tb.Fatal(err)
	}
}

func nodeCIDR(i int) netip.Prefix { return netip.MustParsePrefix(fmt.Sprintf("10.244.%d.0/24", i)) }
func nodeAddr(i int) netip.Addr   { return netip.MustParseAddr(fmt.Sprintf("10.0.0.1%d", i)) }

func getJSON(url string, into any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if into == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(into)
}

// alertIn checks Alertmanager shows (or no longer shows) an alert.
func alertIn(am *testam.Alertmanager, alertname, prefix, node string, present bool) func() error {
	return func() error {
		alerts, err := am.Alerts("")
		if err != nil {
			return err
		}
		found := false
		for _, a := range alerts {
			if a.Labels["alertname"] == alertname && a.Labels["prefix"] == prefix && a.Labels["node"] == node {
				found = true
			}
		}
		if found != present {
			return fmt.Errorf("%s %s node=%q present=%v, want %v (alerts: %d)", alertname, prefix, node, found, present,
				len(alerts))
		}
		return nil
	}
}

// alertNames lists the alerts Alertmanager shows, as "alertname prefix node".
func alertNames(t *testing.T, am *testam.Alertmanager) []string {
	t.Helper()
	alerts, err := am.Alerts("")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range alerts {
		out = append(out, a.Labels["alertname"]+" "+a.Labels["prefix"]+" "+a.Labels["node"])
	}
	slices.Sort(out)
	return out
}
