// Package testam runs a real Alertmanager (Debian's prometheus-alertmanager)
// for tests, on 127.0.0.1 with its own storage and gossip disabled, over
// plain HTTP or secured by a web config (TLS, client certificates, basic
// auth). It can be stopped and started again on the same address, keeping
// or wiping storage.
package testam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/loopback"
)

// Alertmanager is a real Alertmanager run by a test on 127.0.0.1, with
// its own storage and gossip disabled. It can be stopped and started again on
// the same address, keeping or wiping its storage.
type Alertmanager struct {
	t       testing.TB
	bin     string
	dir     string
	addr    string
	config  string
	cmd     *exec.Cmd
	exited  chan struct{}
	logPath string
	web     Web
	webFile string
}

// Web secures Alertmanager's HTTP endpoint (its --web.config.file) and says
// how the test's own requests reach it.
type Web struct {
	Config   string       // the web config file's content ("" for plain HTTP)
	TLS      bool         // Config has a tls_server_config: the URL is https
	Client   *http.Client // the test's client (trusting the server, presenting a client certificate)
	Username string       // basic auth on the test's requests, when not empty
	Password string
}

// RequireBinary returns the path of a test dependency: env, else path. When
// absent the test is skipped, or fails under CI where hack/test-deps.sh must
// have installed it. Under -short (the quick tier: units, goldens, in-process
// BGP) the test is skipped: it runs a third party's daemon or tool.
func RequireBinary(t testing.TB, env, path, pkg string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: runs Debian's %s (the full tier, hack/test.sh)", pkg)
	}
	if p := os.Getenv(env); p != "" {
		path = p
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found (%v): hack/test-deps.sh installs Debian's %s", path, err, pkg)
		}
		t.Skipf("%s not found: install Debian's %s (hack/test-deps.sh) or set %s", path, pkg, env)
	}
	return path
}

// Start starts an Alertmanager whose only receiver posts to
// webhookURL (when not empty) with send_resolved, grouping each alert alone
// and notifying within a fraction of a second.
func Start(t testing.TB, webhookURL string) *Alertmanager {
	t.Helper()
	return StartWeb(t, webhookURL, Web{})
}

// StartWeb is Start with Alertmanager's HTTP endpoint secured by web.
func StartWeb(t testing.TB, webhookURL string, web Web) *Alertmanager {
	t.Helper()
	a := &Alertmanager{t: t, bin: RequireBinary(t, "ALERTMANAGER", "/usr/bin/prometheus-alertmanager",
		"prometheus-alertmanager"), dir: t.TempDir(), web: web}
	if a.web.Client == nil {
		a.web.Client = http.DefaultClient
	}
	a.addr = loopback.FreeAddr(t)
	a.logPath = filepath.Join(a.dir, "alertmanager.log")
	receiver := "  - name: test\n"
	if webhookURL != "" {
		receiver += fmt.Sprintf("    webhook_configs:\n      - url: %q\n        send_resolved: true\n", webhookURL)
	}
	conf := "route:\n  receiver: test\n  group_by: ['...']\n  group_wait: 50ms\n  group_interval: 100ms\n" +
		"  repeat_interval: 1h\nreceivers:\n" + receiver
	a.config = filepath.Join(a.dir, "alertmanager.yml")
	if err := os.WriteFile(a.config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if web.Config != "" {
		a.webFile = filepath.Join(a.dir, "web.yml")
		if err := os.WriteFile(a.webFile, []byte(web.Config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		a.Stop()
		if t.Failed() {
			if b, err := os.ReadFile(a.logPath); err == nil {
				t.Logf("Alertmanager %s log:\n%s", a.addr, b)
			}
		}
	})
	a.Start(false)
	return a
}

// URL is Alertmanager's base URL.
func (a *Alertmanager) URL() string {
	if a.web.TLS {
		return "https://" + a.addr
	}
	return "http://" + a.addr
}

// Start starts Alertmanager (again) on its address, with fresh storage if
// wipe, and waits until it is ready.
func (a *Alertmanager) Start(wipe bool) {
	a.t.Helper()
	storage := filepath.Join(a.dir, "data")
	if wipe {
		if err := os.RemoveAll(storage); err != nil {
			a.t.Fatal(err)
		}
	}
	logFile, err := os.OpenFile(a.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		a.t.Fatal(err)
	}
	defer logFile.Close()
	args := []string{"--config.file=" + a.config, "--storage.path=" + storage, "--web.listen-address=" + a.addr,
		"--cluster.listen-address="}
	if a.webFile != "" {
		args = append(args, "--web.config.file="+a.webFile)
	}
	a.cmd = exec.Command(a.bin, args...)
	a.cmd.Stdout, a.cmd.Stderr = logFile, logFile
	if err := a.cmd.Start(); err != nil {
		a.t.Fatalf("starting Alertmanager: %v", err)
	}
	exited := make(chan struct{})
	a.exited = exited
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); close(exited) }(a.cmd)

	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			a.t.Fatalf("Alertmanager exited during startup: %v", a.cmd.ProcessState)
		default:
		}
		resp, err := a.get(context.Background(), "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("Alertmanager on %s not ready after 60s: %v", a.addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops Alertmanager (SIGTERM, then SIGKILL after 20s) and waits for it.
func (a *Alertmanager) Stop() {
	if a.cmd == nil {
		return
	}
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.exited:
	case <-time.After(20 * time.Second):
		_ = a.cmd.Process.Kill()
		<-a.exited
	}
	a.cmd = nil
}

// Alert is the part of Alertmanager's GET /api/v2/alerts answer the
// tests look at.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    time.Time         `json:"startsAt"`
	EndsAt      time.Time         `json:"endsAt"`
	Fingerprint string            `json:"fingerprint"`
	Status      struct {
		State string `json:"state"`
	} `json:"status"`
}

// Alerts lists the alerts Alertmanager shows by default, by fingerprint.
// Resolved alerts are not among them: the v2 API leaves out every alert
// whose endsAt has passed, whatever the filter parameters.
func (a *Alertmanager) Alerts(query string) (map[string]Alert, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := a.get(ctx, "/api/v2/alerts"+query)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, errors.New("GET /api/v2/alerts: " + resp.Status)
	}
	var list []Alert
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, err
	}
	out := make(map[string]Alert, len(list))
	for _, g := range list {
		out[g.Fingerprint] = g
	}
	return out, nil
}

// get sends the test's GET request for path, with the web config's client
// and basic auth.
func (a *Alertmanager) get(ctx context.Context, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL()+path, nil)
	if err != nil {
		return nil, err
	}
	if a.web.Username != "" {
		req.SetBasicAuth(a.web.Username, a.web.Password)
	}
	return a.web.Client.Do(req)
}
