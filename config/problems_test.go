package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/golden"
)

// base is a config run accepts; each case below breaks it one way.
const base = "bgp:\n  asn: 65000\n  routerId: 10.0.0.250\n  dynamicNeighbors:\n    - prefix: 10.0.0.0/24\n"

// TestProblemMessages feeds each broken input an operator met and compares
// the whole report with testdata/problems/<name>.golden (go test -update).
func TestProblemMessages(t *testing.T) {
	for _, tc := range []struct{ name, yaml string }{
		{"flow-asn", "bgp: {asn: x, routerId: 10.0.0.250, dynamicNeighbors: [{prefix: 10.0.0.0/24}]}\n"},
		{"flow-graceful", "bgp: {asn: 65000, routerId: 10.0.0.250, dynamicNeighbors: [{prefix: 10.0.0.0/24}],\n" +
			"  gracefulRestart: {enabled: maybe, window: 120s}}\n"},
		{"flow-validation", base + "validation: {holdDown: \"30 s\", warmupTimeout: 2m}\n"},
		{"address", base + "  neighbors:\n    - address: 10.0.0.300\n"},
		{"hold-time", base + "  neighbors:\n    - address: 10.0.1.1\n      holdTime: 2s\n"},
		{"password-file", base + "  neighbors:\n    - address: 10.0.1.1\n      passwordFile: /nonexistent/md5\n"},
		{"duplicate-neighbor", base + "  neighbors:\n    - address: 10.0.1.1\n    - address: 10.0.1.1\n"},
		{"http-listen", base + "http:\n  listen: \"9479\"\n"},
		{"url-scheme", base + "alerting:\n  alertmanagers:\n    - url: alertmanager:9093\n"},
		{"log-level", base + "log:\n  level: verbose\n"},
		{"negative-duration", base + "validation:\n  holdDown: -5s\n"},
		{"listen-port-list", base + "  listenPort: [179]\n"},
		{"host-bits", base + "cluster:\n  podRanges: [10.1.2.3/24]\n"},
		{"runbook-base", base + "alerting:\n  runbookBase: \"not a url\"\n"},
		{"overlapping-ranges", base + "    - prefix: 10.0.0.128/25\n"},
		{"duplicate-key", "bgp:\n  asn: 65000\n  asn: 65001\n  routerId: 10.0.0.250\n" +
			"  dynamicNeighbors: [{prefix: 10.0.0.0/24}]\nlog: {level: verbose}\n"},
		{"all-at-once", "cluster: {podRanges: [10.1.2.3/24]}\n" +
			"bgp:\n  asn: x\n  routerId: 10.0.0.250\n  listenPort: [179]\n" +
			"  gracefulRestart: {enabled: maybe, window: 120s}\n" +
			"  neighbors:\n    - {address: 10.0.0.300, holdTime: 2s, passwordFile: /nonexistent/md5}\n" +
			"    - address: 10.0.1.1\n    - address: 10.0.1.1\n" +
			"  dynamicNeighbors: [{prefix: 10.0.0.0/24}, {prefix: 10.0.0.128/25}]\n" +
			"validation: {holdDown: \"30 s\", warmupTimeout: -5s}\n" +
			"alerting:\n  runbookBase: \"not a url\"\n  alertmanagers: [{url: alertmanager:9093}]\n" +
			"http: {listen: \"9479\"}\nlog: {level: verbose}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "routewarden.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, problems, err := Load(path, ForRun)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			b.WriteString(tc.yaml + "---\n")
			for _, p := range problems {
				b.WriteString(strings.TrimPrefix(p.String(), dir+"/") + "\n")
			}
			golden.Assert(t, "testdata/problems/"+tc.name+".golden", []byte(b.String()))
		})
	}
}
