package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/wait"
)

// detectionEnv is the running system the trials act on.
type detectionEnv struct {
	kube     *kubeREST
	am       *testam.Alertmanager
	api      string
	client   *http.Client
	speakers map[int]*speaker.Speaker
}

// startDetectionEnv starts the control plane with three nodes, Alertmanager,
// routewarden run and one speaker per node, and waits for a healthy cluster.
// An empty debounce leaves validation.debounce at its default.
func startDetectionEnv(b *testing.B, debounce string) *detectionEnv {
	b.Helper()
	am := testam.Start(b, "")
	h := startE2E(b, e2eOptions{Cluster: "bench", Debounce: debounce,
		Alerting: fmt.Sprintf("  alertmanagers: [{url: %s}]", am.URL())})
	server, err := h.env.Kubectl("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}")
	if err != nil {
		b.Fatalf("reading the API server's URL: %v\n%s", err, server)
	}
	return &detectionEnv{kube: newKubeREST(b, h.env.Dir, server), am: am, api: h.api,
		client: &http.Client{Timeout: 10 * time.Second}, speakers: h.speakers}
}

// waitClean waits, untimed, until routewarden lists no finding and
// Alertmanager no alert.
func waitClean(b *testing.B, e *detectionEnv) {
	b.Helper()
	wait.For(b, "no finding and no alert", detectTimeout, func() error {
		var f struct {
			Findings []any `json:"findings"`
		}
		if err := getJSON(e.api+"/api/v1/findings", &f); err != nil {
			return err
		}
		alerts, err := e.am.Alerts("")
		if err != nil {
			return err
		}
		if len(f.Findings) != 0 || len(alerts) != 0 {
			return fmt.Errorf("%d findings, %d alerts", len(f.Findings), len(alerts))
		}
		return nil
	})
}

// listedAlert returns the alert Alertmanager lists for alertname and prefix.
func (e *detectionEnv) listedAlert(alertname, prefix string) (testam.Alert, bool, error) {
	alerts, err := e.am.Alerts("")
	if err != nil {
		return testam.Alert{}, false, err
	}
	for _, a := range alerts {
		if a.Labels["alertname"] == alertname && a.Labels["prefix"] == prefix {
			return a, true, nil
		}
	}
	return testam.Alert{}, false, nil
}

// kubeREST is the few Kubernetes API calls the detection benchmark times, made
// with net/http and the admin client certificate of internal/testkube, so that
// no kubectl process start-up is counted in a latency.
type kubeREST struct {
	server string
	client *http.Client
}

// newKubeREST reads the server URL from the kubeconfig (through kubectl, once)
// and the CA and admin key pair from the control plane's pki/ folder.
func newKubeREST(tb testing.TB, dir, server string) *kubeREST {
	tb.Helper()
	pki := filepath.Join(dir, "pki")
	ca, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		tb.Fatalf("no certificate in %s", filepath.Join(pki, "ca.crt"))
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "admin.crt"), filepath.Join(pki, "admin.key"))
	if err != nil {
		tb.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert},
		MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: 4}
	tb.Cleanup(tr.CloseIdleConnections)
	return &kubeREST{server: strings.TrimRight(server, "/"), client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

func (k *kubeREST) do(method, path string, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, k.server+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return out, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, out)
	}
	return out, nil
}

// benchNode is the Node testkube.NodeManifest(i) describes, as the JSON
// object the API takes: Ready, at 10.0.0.1i (its CIDR comes from its CiliumNode).
func benchNode(i int) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": fmt.Sprintf("node%d", i), "labels": map[string]string{"kubernetes.io/os": "linux"}},
		"status": map[string]any{
			"addresses": []map[string]string{{"type": "InternalIP", "address": fmt.Sprintf("10.0.0.1%d", i)}},
			"conditions": []map[string]string{{"type": "Ready", "status": "True", "reason": "KubeletReady",
				"message": "ready", "lastHeartbeatTime": "2026-11-20T10:00:00Z", "lastTransitionTime": "2026-11-20T09:00:00Z"}},
		},
	}
}

// deleteNode deletes node i.
func (k *kubeREST) deleteNode(i int) error {
	_, err := k.do(http.MethodDelete, fmt.Sprintf("/api/v1/nodes/node%d", i), nil)
	return err
}

// createNode creates node i with its status. The Node registry keeps the
// status given on create (as a kubelet registering does); should it not,
// the status is written through the subresource, as testkube.Env.Apply does.
func (k *kubeREST) createNode(i int) error {
	out, err := k.do(http.MethodPost, "/api/v1/nodes", benchNode(i))
	if err != nil {
		return err
	}
	var created struct {
		Metadata map[string]any `json:"metadata"`
		Status   struct {
			Addresses []any `json:"addresses"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out, &created); err != nil {
		return fmt.Errorf("decoding the created node%d: %w", i, err)
	}
	if len(created.Status.Addresses) > 0 {
		return nil
	}
	n := benchNode(i)
	n["metadata"] = created.Metadata
	_, err = k.do(http.MethodPut, fmt.Sprintf("/api/v1/nodes/node%d/status", i), n)
	return err
}
