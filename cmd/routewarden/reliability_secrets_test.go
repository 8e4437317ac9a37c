package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/routewarden/routewarden/cmd/routewarden/cli"
	"github.com/routewarden/routewarden/internal/wait"
)

// TestReliabilitySecretsAndTLS runs the built binary at debug level against
// a real Alertmanager served over TLS that requires a client certificate and
// basic auth, and a webhook with a bearer token and a secret in its URL path.
// The promise:
//   - alerts reach the TLS Alertmanager with routewarden's caFile, certFile,
//     keyFile, username and passwordFile, and the webhook with the token;
//   - none of the secrets (Alertmanager password, bearer token, webhook URL
//     path, TCP MD5 password) appears in any log line, in any HTTP API
//     response (/, /healthz, /readyz, /metrics, /api/v1/*), or in
//     validate-config's output, text or JSON;
//   - a TCP MD5 password is read from its file even where the kernel cannot
//     use it (run refuses with exit 3, a reload is refused; where the kernel
//     can, they are applied): the refusal never shows the password.
//
// Secrets come only from files (README, Configuration), never from the
// config itself or the environment.
func TestReliabilitySecretsAndTLS(t *testing.T) {
	t.Parallel() // Mostly waiting, like the outage tests: they share the wall time.
	bin := relBinary(t)
	secrets := map[string]string{"Alertmanager password": tlsAMPassword, "bearer token": "tok-9c41e0b7aa5d",
		"webhook URL path": "hookpath-51f3d2c6", "TCP MD5 password": "md5-b8e2a7f19034"}
	e := newE2E(t, 3)
	pki := newTLSPKI(t)
	am := startTLSAM(t, pki)
	hook := newRelHook(t)
	cfgText := e.config(relOptions(fmt.Sprintf(`  resendInterval: 2s
  alertmanagers:
    - {url: %s, caFile: %s, certFile: %s, keyFile: %s, username: %s, passwordFile: %s}
  webhooks:
    - {url: %s/hook/%s, bearerTokenFile: %s}`, am.URL(), pki.CA, pki.ClientCert, pki.ClientKey, tlsAMUser,
		writeFile(t, "am-password", secrets["Alertmanager password"]+"\n"), hook.URL, secrets["webhook URL path"],
		writeFile(t, "token", secrets["bearer token"]+"\n"))))
	md5Text := strings.Replace(cfgText, "  dynamicNeighbors:", fmt.Sprintf(
		"  neighbors: [{address: 127.0.1.20, asn: 65010, passwordFile: %s}]\n  dynamicNeighbors:",
		writeFile(t, "md5", secrets["TCP MD5 password"]+"\n")), 1)
	cfg, md5Cfg := writeFile(t, "routewarden.yaml", cfgText), writeFile(t, "md5.yaml", md5Text)
	outputs := map[string]string{}

	for _, o := range []string{"text", "json"} {
		out, _ := exec.Command(bin, "validate-config", "--config", md5Cfg, "-o", o, "--log-level", "debug").
			CombinedOutput()
		outputs["validate-config -o "+o] = string(out)
	}

	// run with the MD5 neighbor: refused where the kernel lacks TCP_MD5SIG.
	md5Run, out, exited := relStartBinary(t, bin, "run", "--config", md5Cfg, "--log-level", "debug", "--log-format",
		"json")
	select {
	case err := <-exited:
		if code := md5Run.ProcessState.ExitCode(); code != cli.ExitRuntime || !strings.Contains(out.String(), "TCP MD5") {
			t.Errorf("run with a TCP MD5 password exited %d (%v), want 3 saying why:\n%s", code, err, out)
		}
	case <-time.After(15 * time.Second): // This kernel signs TCP: the neighbor is configured.
		_ = md5Run.Process.Signal(syscall.SIGTERM)
		_ = <-exited // a signal's exit
	}
	outputs["run with a TCP MD5 password"] = out.String()

	cmd, logs, done := relStartBinary(t, bin, "run", "--config", cfg, "--log-level", "debug", "--log-format", "json")
	speaker := e.speaker(t, 1, true)
	e.speaker(t, 2, true)
	e.speaker(t, 3, true)
	api := e.api
	e.waitHealthy(t, 3)
	announce(t, speaker, "10.244.2.0/24", 1)
	wait.For(t, "BGPForeignCIDR in the TLS Alertmanager", time.Minute,
		alertIn(am, "BGPForeignCIDR", "10.244.2.0/24", "node1", true))
	wait.For(t, "the webhook to get the alert with the bearer token", time.Minute,
		hook.has("firing", "BGPForeignCIDR", "10.244.2.0/24", time.Time{}))
	hook.mu.Lock()
	for _, a := range hook.auth {
		if a != "Bearer "+secrets["bearer token"] {
			t.Errorf("the webhook got Authorization %q", a)
		}
	}
	hook.mu.Unlock()

	// A reload adding the MD5 neighbor reads the password file.
	if err := os.WriteFile(cfg, []byte(md5Text), 0o600); err != nil {
		t.Fatal(err)
	}
	wait.True(t, "the reload to be refused (or applied)", time.Minute, func() bool {
		return strings.Contains(logs.String(), "config reload refused") || strings.Contains(logs.String(), "config reloaded")
	})

	for _, path := range []string{"/", "/healthz", "/readyz", "/metrics", "/api/v1/findings", "/api/v1/findings?firing=true",
		"/api/v1/transitions", "/api/v1/routes", "/api/v1/peers", "/api/v1/nodes", "/api/v1/openapi.json"} {
		resp, err := http.Get(api + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		outputs["GET "+path] = string(body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("routewarden run exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("routewarden run did not stop within 30s of SIGTERM")
	}
	outputs["run --log-level debug"] = logs.String()
	if !strings.Contains(logs.String(), `"level":"debug"`) {
		t.Error("no debug line logged: the check would prove little")
	}

	for where, text := range outputs {
		if text == "" && where != "GET /healthz" {
			t.Errorf("%s: empty output", where)
		}
		for what, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("%s shows the %s:\n%s", where, what, text)
			}
		}
	}
	t.Logf("checked %d outputs (%d bytes of debug log) for %d secrets", len(outputs), len(logs.String()), len(secrets))
}
