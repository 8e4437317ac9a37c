package httpapi

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/validator"
)

// update rewrites docs/status-page.png and the README's API answers
// (internal/golden's -update pattern).
var update = flag.Bool("update", false, "rewrite docs/status-page.png and the API answers the README shows")

const screenshotPath = "../docs/status-page.png"

// chromium runs Debian's headless Chromium on url with extra arguments and
// returns its standard output. It is skipped without Chromium, except in CI.
func chromium(t *testing.T, url string, args ...string) []byte {
	t.Helper()
	bin := testam.RequireBinary(t, "CHROMIUM", "/usr/bin/chromium", "chromium")
	profile, err := os.MkdirTemp("", "routewarden-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: Chromium's helpers may still write there as it exits.
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--user-data-dir=" + profile}, args...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	cmd.Env = append(os.Environ(), "TZ=UTC", "LANG=C.UTF-8", "HOME="+profile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // helpers left in Chromium's process group
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, lastLines(stderr.String(), 20))
	}
	return stdout.Bytes()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// dumpDOM loads the page served by h and returns the DOM once its scripts ran
// for a virtual time of budget (the page refreshes every 5s).
func dumpDOM(t *testing.T, h http.Handler, budget time.Duration) *dom {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	return parseDOM(string(chromium(t, srv.URL+"/", fmt.Sprintf("--virtual-time-budget=%d", budget.Milliseconds()),
		"--dump-dom")))
}

// TestStatusPageInChromium renders the page in a real browser against the API
// and checks the DOM: one finding of every rule (from the real engine), nodes
// that are OK, wrong and missing, peers in several states.
func TestStatusPageInChromium(t *testing.T) {
	sc := everyRule(t)
	d := dumpDOM(t, New("127.0.0.1:0", sc.sources(), prometheus.NewRegistry(), zerolog.Nop()).Handler(), 4*time.Second)
	if d.body["state"] != "ok" || !d.hidden("error") || !d.hidden("notice") {
		t.Fatalf("page state %q, error banner %q: the API answered, the page must show it", d.body["state"], d.text("error"))
	}

	rows := d.rows("findings")
	if len(rows) != len(validator.Rules()) {
		t.Errorf("%d finding rows, want one per rule (%d)", len(rows), len(validator.Rules()))
	}
	for i, tr := range sc.findings {
		var got []row
		for _, r := range rows {
			if r.attr["rule"] == string(tr.Rule) {
				got = append(got, r)
			}
		}
		if len(got) != 1 {
			t.Errorf("rule %s: %d rows, want 1", tr.Rule, len(got))
			continue
		}
		r := got[0]
		age := ageText(sc.now.Sub(tr.FirstSeen))
		state := map[bool]string{true: "firing", false: "pending (hold-down)"}[tr.Firing]
		for _, want := range []string{tr.Severity.String(), tr.Prefix.String(), age, state, tr.Message, tr.Hint} {
			if !strings.Contains(r.text, want) {
				t.Errorf("rule %s (#%d): row %q lacks %q", tr.Rule, i, r.text, want)
			}
		}
		if r.attr["severity"] != tr.Severity.String() || r.attr["firing"] != fmt.Sprint(tr.Firing) ||
			!strings.Contains(r.raw, fmt.Sprintf(`data-age-seconds="%d"`, int(sc.now.Sub(tr.FirstSeen).Seconds()))) {
			t.Errorf("rule %s: attributes %v", tr.Rule, r.attr)
		}
	}

	checkNodes(t, d, sc)

	peers := d.rows("peers")
	if len(peers) != len(sc.peers) {
		t.Errorf("%d peer rows, want %d", len(peers), len(sc.peers))
	}
	for _, p := range sc.peers {
		r, ok := d.row("peers", "peer", p.Address.String())
		if !ok {
			t.Errorf("peer %s: no row", p.Address)
			continue
		}
		if r.attr["state"] != p.State || r.attr["routes"] != fmt.Sprint(p.Routes) || !strings.Contains(r.text, p.State) ||
			!strings.Contains(r.text, ageText(sc.now.Sub(p.Since))) || !strings.Contains(r.text, fmt.Sprintf("AS%d", p.ASN)) {
			t.Errorf("peer %s: row %q %v, want state %s, %d routes, since %s", p.Address, r.text, r.attr, p.State,
				p.Routes, ageText(sc.now.Sub(p.Since)))
		}
		if left := fmt.Sprintf("%d received, %d accepted; left out: 2 treat-as-withdraw", p.Received, p.Received-2); len(p.Dropped) > 0 &&
			!strings.Contains(r.text, left) {
			t.Errorf("peer %s: row %q lacks %q", p.Address, r.text, left)
		}
	}
	for _, want := range []string{"5 nodes", "6 peers (4 established)", fmt.Sprintf("%d routes", len(sc.routes)),
		fmt.Sprintf("%d findings", len(sc.findings)), "Updated 2026-11-22 05:00:00 UTC"} {
		if !strings.Contains(d.text("summary")+" "+d.text("updated"), want) {
			t.Errorf("header %q %q lacks %q", d.text("summary"), d.text("updated"), want)
		}
	}

	if *update {
		srv := httptest.NewServer(New("127.0.0.1:0", sc.sources(), prometheus.NewRegistry(), zerolog.Nop()).Handler())
		defer srv.Close()
		abs, _ := filepath.Abs(screenshotPath)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		chromium(t, srv.URL+"/", "--virtual-time-budget=4000", "--window-size=1400,1000", "--screenshot="+abs)
		if st, err := os.Stat(abs); err != nil || st.Size() < 10000 {
			t.Fatalf("screenshot %s: %v", abs, err)
		}
		t.Logf("wrote %s", abs)
	}
}

func checkNodes(t *testing.T, d *dom, sc *scenario) {
	t.Helper()
	if n := len(d.rows("nodes")); n != len(sc.nodes) {
		t.Errorf("%d node rows, want %d", n, len(sc.nodes))
	}
	for name, status := range sc.nodes {
		r, ok := d.row("nodes", "node", name)
		if !ok || r.attr["status"] != status {
			t.Errorf("node %s: status %q (%q), want %q", name, r.attr["status"], r.text, status)
		}
	}
	for key, status := range sc.chips {
		name, prefix, _ := strings.Cut(key, " ")
		r, _ := d.row("nodes", "node", name)
		if got := r.chips[prefix]; got != status {
			t.Errorf("node %s, prefix %s: chip %q, want %q (row chips %v)", name, prefix, got, status, r.chips)
		}
	}
}

// TestStatusPageStates checks the page without findings, when the API cannot
// be reached, and when it goes away after the first refresh (which proves the
// page refreshes by itself and keeps the last answer).
func TestStatusPageStates(t *testing.T) {
	sc := allClear()
	ok := New("127.0.0.1:0", sc.sources(), prometheus.NewRegistry(), zerolog.Nop()).Handler()
	// failAfter serves the page, and the API for its first n requests only.
	failAfter := func(n int64) http.Handler {
		var calls atomic.Int64
		mux := http.NewServeMux()
		mux.Handle("GET /{$}", ok)
		mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) > n {
				http.Error(w, "backend gone", http.StatusServiceUnavailable)
				return
			}
			ok.ServeHTTP(w, r)
		})
		return mux
	}
	cases := []struct {
		name    string
		handler http.Handler
		budget  time.Duration
		state   string
		error   string // in the error banner's text, "" for hidden
		table   string // in the findings table's text
	}{
		{"all clear", ok, 4 * time.Second, "ok", "", "No findings: the routes match the cluster."},
		{"API down", failAfter(0), 4 * time.Second, "error", "HTTP 503 backend gone", ""},
		{"API lost", failAfter(4), 7 * time.Second, "error", "The tables show the last answer",
			"No findings: the routes match the cluster."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := dumpDOM(t, tc.handler, tc.budget)
			if d.body["state"] != tc.state {
				t.Errorf("body data-state %q, want %q", d.body["state"], tc.state)
			}
			if tc.error == "" != d.hidden("error") || !strings.Contains(d.text("error"), tc.error) {
				t.Errorf("error banner (hidden %v) %q, want %q", d.hidden("error"), d.text("error"), tc.error)
			}
			if got := d.text("findings"); !strings.Contains(got, tc.table) {
				t.Errorf("findings table %q lacks %q", got, tc.table)
			}
		})
	}
}
