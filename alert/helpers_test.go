package alert

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/logbuf"
	"github.com/routewarden/routewarden/internal/wait"

	amtemplate "github.com/prometheus/alertmanager/template"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/routewarden/routewarden/validator"
)

// TestMain fails the package if any test leaves a goroutine behind: the
// Dispatcher's workers, HTTP connections and Alertmanager waiters included.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var errNotYet = errors.New("not yet")

// testAlert is a distinct stale-route alert for each i.
func testAlert(i int) Alert {
	return FromFinding(validator.Finding{
		Rule: validator.RuleStaleRoute, Severity: validator.SeverityWarning,
		Prefix:  netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i), 0}), 24),
		Node:    fmt.Sprintf("node-%d", i),
		NextHop: netip.AddrFrom4([4]byte{192, 168, 0, byte(i)}),
		Message: fmt.Sprintf("stale route %d", i), Hint: "withdraw it",
	}, FindingOptions{Cluster: "test", RunbookBase: "https://example.com/runbook", GeneratorURL: "http://routewarden/"})
}

// runDispatcher starts a Dispatcher whose log goes to the test log and to the
// returned buffer; it is stopped, and Run's result checked, when the test ends.
func runDispatcher(t *testing.T, cfg DispatcherConfig, sinks []Sink, reg prometheus.Registerer) (*Dispatcher, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	log := zerolog.New(io.MultiWriter(zerolog.NewTestWriter(t), logs))
	d, err := NewDispatcher(cfg, sinks, log, reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Run returned %v, want nil", err)
		}
	})
	return d, logs
}

// webhookMessageV4 is Alertmanager's webhook payload as its own types decode it.
type webhookMessageV4 struct {
	amtemplate.Data
	Version         string `json:"version"`
	GroupKey        string `json:"groupKey"`
	TruncatedAlerts uint64 `json:"truncatedAlerts"`
}

// webhookRecorder is an HTTP server recording webhook payloads and requests.
type webhookRecorder struct {
	*httptest.Server
	mu       sync.Mutex
	messages []webhookMessageV4
	raw      [][]byte
	headers  []http.Header
	status   int
}

func newWebhookRecorder(t *testing.T, tls bool) *webhookRecorder {
	t.Helper()
	r := &webhookRecorder{status: http.StatusOK}
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var m webhookMessageV4
		body, err := io.ReadAll(req.Body)
		if err == nil {
			err = json.Unmarshal(body, &m)
		}
		r.mu.Lock()
		status := r.status
		if err == nil && status/100 == 2 {
			r.messages = append(r.messages, m)
			r.raw = append(r.raw, body)
		}
		r.headers = append(r.headers, req.Header.Clone())
		r.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(status)
	})
	if tls {
		r.Server = httptest.NewTLSServer(h)
	} else {
		r.Server = httptest.NewServer(h)
	}
	t.Cleanup(r.Close)
	return r
}

func (r *webhookRecorder) rawBodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.raw...)
}

func (r *webhookRecorder) received() ([]webhookMessageV4, []http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]webhookMessageV4(nil), r.messages...), append([]http.Header(nil), r.headers...)
}

// metricValue is the value of the series of name with exactly labels, or
// -1 when there is none.
func metricValue(t *testing.T, g prometheus.Gatherer, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue series
				}
			}
			switch {
			case m.Counter != nil:
				return m.GetCounter().GetValue()
			case m.Gauge != nil:
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}

// eventually waits for cond with a generous deadline.
func eventually(t testing.TB, what string, cond func() error) {
	t.Helper()
	wait.For(t, what, 60*time.Second, cond)
}

// keys lists a map's keys, for error messages.
func keys[V any](m map[string]V) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	return strings.Join(ks, ",")
}

// newCert makes a certificate signed by parent (self-signed when nil).
func newCert(t *testing.T, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, cn string,
	usage []x509.ExtKeyUsage) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: usage,
		KeyUsage: x509.KeyUsageDigitalSignature}
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func pemCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

func pemKey(t *testing.T, k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}
