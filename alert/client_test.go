package alert

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeFile writes content to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// serverCA writes the certificate of an httptest TLS server as a CA file.
func serverCA(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	return writeFile(t, t.TempDir(), "ca.pem",
		string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
}

// request is what a test server saw of one request.
type request struct {
	method, path, contentType, authorization, clientCN string
	body                                               []byte
}

// requestRecorder is a TLS server recording requests and answering status.
type requestRecorder struct {
	*httptest.Server
	mu       sync.Mutex
	requests []request
	status   []int // answers in turn; the last one repeats
}

func newRequestRecorder(t *testing.T, configure func(*httptest.Server), status ...int) *requestRecorder {
	t.Helper()
	r := &requestRecorder{status: append(status, http.StatusOK)}
	r.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec := request{method: req.Method, path: req.URL.Path, contentType: req.Header.Get("Content-Type"),
			authorization: req.Header.Get("Authorization")}
		if req.TLS != nil && len(req.TLS.PeerCertificates) > 0 {
			rec.clientCN = req.TLS.PeerCertificates[0].Subject.CommonName
		}
		rec.body, _ = io.ReadAll(req.Body)
		r.mu.Lock()
		r.requests = append(r.requests, rec)
		code := r.status[min(len(r.requests)-1, len(r.status)-1)]
		r.mu.Unlock()
		w.WriteHeader(code)
	}))
	r.Config.ErrorLog = log.New(io.Discard, "", 0) // Failed handshakes are expected.
	if configure != nil {
		configure(r.Server)
	}
	r.StartTLS()
	t.Cleanup(r.Close)
	return r
}

func (r *requestRecorder) seen() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]request(nil), r.requests...)
}

// TestSinkTLSAndAuth sends through both sinks to a TLS server checking the
// credentials, rotates the secret files between two sends, and checks that
// no secret reaches an error.
func TestSinkTLSAndAuth(t *testing.T) {
	dir := t.TempDir()
	password := writeFile(t, dir, "password", "first-password\n")
	token := writeFile(t, dir, "token", "first-token\n")
	basic := func(user, pass string) string {
		req, _ := http.NewRequest(http.MethodGet, "/", nil)
		req.SetBasicAuth(user, pass)
		return req.Header.Get("Authorization")
	}
	tests := []struct {
		name      string
		sink      func(url string, tls TLSConfig) (Sink, error)
		path      string
		rotate    func()
		wantAuth  [2]string // before and after rotation
		wantError string    // when the TLS setup must fail
		tls       func(srv *httptest.Server) TLSConfig
	}{
		{name: "alertmanager, basic auth", path: "/prefix/api/v2/alerts",
			sink: func(url string, tls TLSConfig) (Sink, error) {
				return NewAlertmanager(AlertmanagerConfig{URL: url + "/prefix", TLS: tls,
					BasicAuth: BasicAuth{Username: "routewarden", PasswordFile: password}})
			},
			rotate:   func() { writeFile(t, dir, "password", "second-password") },
			wantAuth: [2]string{basic("routewarden", "first-password"), basic("routewarden", "second-password")}},
		{name: "webhook, bearer token", path: "/hook",
			sink: func(url string, tls TLSConfig) (Sink, error) {
				return NewWebhook(WebhookConfig{URL: url + "/hook", TLS: tls, BearerTokenFile: token})
			},
			rotate:   func() { writeFile(t, dir, "token", "second-token") },
			wantAuth: [2]string{"Bearer first-token", "Bearer second-token"}},
		{name: "alertmanager, no credentials, server name checked", path: "/api/v2/alerts",
			sink: func(url string, tls TLSConfig) (Sink, error) {
				return NewAlertmanager(AlertmanagerConfig{URL: url, TLS: tls})
			},
			tls: func(srv *httptest.Server) TLSConfig {
				return TLSConfig{CAFile: serverCA(t, srv), ServerName: "example.com"}
			}},
		{name: "insecure skip verify", path: "/api/v2/alerts",
			sink: func(url string, tls TLSConfig) (Sink, error) {
				return NewAlertmanager(AlertmanagerConfig{URL: url, TLS: tls})
			},
			tls: func(*httptest.Server) TLSConfig { return TLSConfig{InsecureSkipVerify: true} }},
		{name: "unknown CA", wantError: "certificate",
			sink: func(url string, tls TLSConfig) (Sink, error) {
				return NewAlertmanager(AlertmanagerConfig{URL: url, TLS: tls})
			},
			tls: func(*httptest.Server) TLSConfig { return TLSConfig{} }},
		{name: "wrong server name", wantError: "certificate",
			sink: func(url string, tls TLSConfig) (Sink, error) {
				return NewWebhook(WebhookConfig{URL: url, TLS: tls, BearerTokenFile: token})
			},
			tls: func(srv *httptest.Server) TLSConfig {
				return TLSConfig{CAFile: serverCA(t, srv), ServerName: "other.example"}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRequestRecorder(t, nil)
			tlsConf := TLSConfig{CAFile: serverCA(t, srv.Server)}
			if tt.tls != nil {
				tlsConf = tt.tls(srv.Server)
			}
			sink, err := tt.sink(srv.URL, tlsConf)
			if err != nil {
				t.Fatal(err)
			}
			defer sink.(interface{ CloseIdleConnections() }).CloseIdleConnections()
			batch := []Notice{{Alert: testAlert(1), Fingerprint: testAlert(1).Fingerprint()}}
			err = sink.Send(context.Background(), batch)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) || !retryable(err) {
					t.Fatalf("Send = %v, want a retryable error about the %s", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.rotate != nil {
				tt.rotate()
			}
			if err := sink.Send(context.Background(), batch); err != nil {
				t.Fatal(err)
			}
			reqs := srv.seen()
			for i, r := range reqs {
				if r.method != http.MethodPost || r.path != tt.path || r.contentType != "application/json" {
					t.Errorf("request %d: %s %s (%s), want POST %s (application/json)", i, r.method, r.path,
						r.contentType, tt.path)
				}
				if r.authorization != tt.wantAuth[i] {
					t.Errorf("request %d: Authorization %q, want %q", i, r.authorization, tt.wantAuth[i])
				}
				if !json.Valid(r.body) {
					t.Errorf("request %d: body is not JSON: %s", i, r.body)
				}
			}
			if len(reqs) != 2 {
				t.Errorf("%d requests, want 2", len(reqs))
			}
		})
	}
}

// TestSinkClientCertificate checks mutual TLS, and that a renewed client
// certificate is used from the next connection on.
func TestSinkClientCertificate(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCert(t, nil, nil, "test CA", nil)
	issue := func(cn string) {
		cert, key := newCert(t, ca, caKey, cn, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth})
		writeFile(t, dir, "client.pem", string(pemCert(cert)))
		writeFile(t, dir, "client-key.pem", string(pemKey(t, key)))
	}
	issue("routewarden-1")
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	srv := newRequestRecorder(t, func(s *httptest.Server) {
		s.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	})
	sink, err := NewAlertmanager(AlertmanagerConfig{URL: srv.URL, TLS: TLSConfig{CAFile: serverCA(t, srv.Server),
		CertFile: filepath.Join(dir, "client.pem"), KeyFile: filepath.Join(dir, "client-key.pem")}})
	if err != nil {
		t.Fatal(err)
	}
	closer := sink.(interface{ CloseIdleConnections() })
	defer closer.CloseIdleConnections()
	batch := []Notice{{Alert: testAlert(1)}}
	if err := sink.Send(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	issue("routewarden-2")
	closer.CloseIdleConnections()
	if err := sink.Send(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	reqs := srv.seen()
	if len(reqs) != 2 || reqs[0].clientCN != "routewarden-1" || reqs[1].clientCN != "routewarden-2" {
		t.Errorf("client certificates seen: %+v", reqs)
	}
}

func TestSinkConfigErrors(t *testing.T) {
	dir := t.TempDir()
	secret := writeFile(t, dir, "secret", "s")
	notPEM := writeFile(t, dir, "not.pem", "hello")
	tests := []struct {
		name string
		cfg  AlertmanagerConfig
		want string
	}{
		{name: "no scheme", cfg: AlertmanagerConfig{URL: "alertmanager:9093"}, want: "scheme"},
		{name: "no host", cfg: AlertmanagerConfig{URL: "http:///x"}, want: "no host"},
		{name: "credentials in the URL", cfg: AlertmanagerConfig{URL: "http://u:hunter2@am:9093"}, want: "credentials"},
		{name: "unparsable URL with credentials", cfg: AlertmanagerConfig{URL: "http://u:hunter2@am:90 93"}, want: "parsing"},
		{name: "password without user", cfg: AlertmanagerConfig{URL: "http://am:9093",
			BasicAuth: BasicAuth{PasswordFile: secret}}, want: "no username"},
		{name: "basic auth and bearer", cfg: AlertmanagerConfig{URL: "http://am:9093",
			BasicAuth: BasicAuth{Username: "u", PasswordFile: secret}, BearerTokenFile: secret}, want: "exclusive"},
		{name: "missing token file", cfg: AlertmanagerConfig{URL: "http://am:9093",
			BearerTokenFile: filepath.Join(dir, "absent")}, want: "secret file"},
		{name: "certificate without key", cfg: AlertmanagerConfig{URL: "https://am:9093",
			TLS: TLSConfig{CertFile: secret}}, want: "key file"},
		{name: "CA file without a certificate", cfg: AlertmanagerConfig{URL: "https://am:9093",
			TLS: TLSConfig{CAFile: notPEM}}, want: "no PEM certificate"},
		{name: "negative timeout", cfg: AlertmanagerConfig{URL: "http://am:9093", Timeout: -time.Second}, want: "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewAlertmanager(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewAlertmanager = %v, want an error about %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error shows the password: %v", err)
			}
			wh := WebhookConfig{URL: tt.cfg.URL, TLS: tt.cfg.TLS, BasicAuth: tt.cfg.BasicAuth,
				BearerTokenFile: tt.cfg.BearerTokenFile, Timeout: tt.cfg.Timeout}
			if _, err := NewWebhook(wh); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewWebhook = %v, want an error about %q", err, tt.want)
			}
		})
	}
	// A webhook URL's path often is a secret: errors show only scheme and host.
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	hook, err := NewWebhook(WebhookConfig{URL: srv.URL + "/services/hunter2?token=hunter2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := hook.Send(context.Background(), []Notice{{Alert: testAlert(1)}}); err == nil ||
		strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), srv.URL) {
		t.Errorf("Send to a closed webhook = %v, want an error naming %s but not the secret path", err, srv.URL)
	}
	names := map[string]string{"http://am": "am:80", "https://am/x": "am:443", "http://[::1]:9093/": "[::1]:9093"}
	for url, want := range names {
		s, err := NewAlertmanager(AlertmanagerConfig{URL: url})
		if err != nil || s.Name() != want {
			t.Errorf("NewAlertmanager(%s): name %v (%v), want %s", url, s, err, want)
		}
	}
}
