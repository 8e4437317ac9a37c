package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// kubeconfigFor writes a kubeconfig whose cluster is server (no CA: a TLS
// server's certificate is not trusted) and whose user has a token.
func kubeconfigFor(t *testing.T, server string) string {
	return writeFile(t, "kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {token: not-a-valid-token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`, server))
}

// statusServer answers every request with a Kubernetes Status of code.
func statusServer(t *testing.T, code int, reason string) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d}`, reason, code)
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// TestRunAPIFailuresNameTheirCause: a Kubernetes API that cannot be used is a
// runtime failure (exit 3) whose message says why, not a usage error and not
// "is Cilium installed?".
func TestRunAPIFailuresNameTheirCause(t *testing.T) {
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := "https://" + closed.Addr().String()
	closed.Close()
	tlsServer := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsServer.Close()
	cases := []struct{ name, server, want string }{
		{"connection refused", refused, "connection refused: nothing listens at the API server's address"},
		{"untrusted certificate", tlsServer.URL, "the API server's TLS certificate is not trusted"},
		{"401", statusServer(t, http.StatusUnauthorized, "Unauthorized"), "refused the credentials (401 Unauthorized)"},
		{"403", statusServer(t, http.StatusForbidden, "Forbidden"), "the API server forbids it (403 Forbidden)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			port, err := freeTCPPort()
			if err != nil {
				t.Fatal(err)
			}
			cfg := writeFile(t, "routewarden.yaml", fmt.Sprintf(`bgp:
  asn: 65000
  routerId: 192.0.2.1
  listenAddresses: [127.0.0.1]
  listenPort: %d
  dynamicNeighbors: [{prefix: 127.0.1.0/24}]
kubernetes: {kubeconfig: %s}
http: {listen: "127.0.0.1:0"}
`, port, kubeconfigFor(t, tc.server)))
			code, _, stderr := runCLI(t, "run", "--config", cfg)
			if code != ExitRuntime || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 3 and %q", code, stderr, tc.want)
			}
			for _, wrong := range []string{"is Cilium installed", "--help"} {
				if strings.Contains(stderr, wrong) {
					t.Errorf("stderr says %q: %s", wrong, stderr)
				}
			}
		})
	}
}

// failingWriter is a standard output that cannot be written (a full disk, a closed pipe).
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestOutputWriteFailureIsARuntimeFailure: output that cannot be written is
// exit 3 naming the cause, never a usage error.
func TestOutputWriteFailureIsARuntimeFailure(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "scenarios", "lb-vips")
	for name, args := range map[string][]string{
		"check": {"check", "--cluster", filepath.Join(dir, "cluster.json"), "--cluster", filepath.Join(dir, "cilium-config.yaml"),
			"--routes", filepath.Join(dir, "routes.gobgp.json")},
		"roas":            {"roas", "--cluster", filepath.Join(dir, "cluster.json"), "--config", filepath.Join("..", "..", "..", "testdata", "roas", "routewarden.yaml")},
		"validate-config": {"validate-config", filepath.Join("..", "..", "..", "testdata", "validate-config", "good-v2.yaml")},
	} {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := Execute(context.Background(), args, strings.NewReader(""), failingWriter{}, &stderr)
			if code != ExitRuntime || !strings.Contains(stderr.String(), "no space left on device") ||
				strings.Contains(stderr.String(), "--help") {
				t.Errorf("exit %d, stderr %q: want exit %d naming the write failure", code, stderr.String(), ExitRuntime)
			}
		})
	}
}
