package config

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestRTR(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // problems, with their lines
	}{
		{"off by default", "bgp:\n  asn: 65000\n", nil},
		{"on with the defaults", "rtr:\n  enabled: true\n", nil},
		{"everything wrong at once", `rtr:
  enabled: true
  listen: "127.0.0.1:99999"
  allowedClients: [10.0.0.0/33, 10.0.0.0/24]
  refresh: 0s
  retry: 1.5s
  expire: 60s
  maxDropShare: 2
  holdDrop: -1s
  maxSessions: 0
  routers: [10.0.0.1, 10.1.0.0/29, "tor1"]
`, []string{
			`:3: rtr.listen: "127.0.0.1:99999": port "99999" is not a TCP port (1–65535)`,
			`:4: rtr.allowedClients[0]: "10.0.0.0/33" is not a CIDR (expected e.g. 10.244.0.0/16)`,
			`:5: rtr.refresh: 0s is outside 1s–24h0m0s (RFC 8210 section 6)`,
			`:6: rtr.retry: 1.5s is not whole seconds`,
			`:7: rtr.expire: 1m0s is outside 10m0s–48h0m0s (RFC 8210 section 6)`,
			`:8: rtr.maxDropShare: 2 is not a share between 0 and 1`,
			`:9: rtr.holdDrop: -1s is negative`,
			`:10: rtr.maxSessions: 0: at least 1 session must be allowed`,
			`:11: rtr.routers[1]: 10.1.0.0/29 is outside rtr.allowedClients: it could never connect`,
			`:11: rtr.routers[2]: "tor1" is neither an IP address nor a CIDR (expected e.g. 10.0.0.1 or 10.0.0.0/29)`,
		}},
		{"expire not beyond refresh", "rtr:\n  enabled: true\n  refresh: 3600s\n  expire: 1800s\n",
			[]string{`:4: rtr.expire: 30m0s must be longer than rtr.refresh (1h0m0s) and rtr.retry (30s)`}},
		{"unknown key", "rtr:\n  enabled: true\n  listenPort: 323\n", []string{":3: rtr.listenPort: unknown key (expected one of: allowedClients, enabled, expire, holdDrop, listen, " +
			"maxDropShare, maxSessions, nodeASN, refresh, retry, routers)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := checkProblems(t, tc.yaml, tc.want)
			if len(tc.want) == 0 && (cfg.RTR.Listen != ":8282" || cfg.RTR.Expire != 2*time.Hour || cfg.RTR.MaxDropShare != 0.5 || cfg.RTR.MaxSessions != 32) {
				t.Errorf("defaults not applied: %+v", cfg.RTR)
			}
		})
	}
}

// checkProblems loads yaml as a config file and compares its problems (file
// name left out) with want; it returns the config.
func checkProblems(t *testing.T, yaml string, want []string) *Config {
	t.Helper()
	path := t.TempDir() + "/routewarden.yaml"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, problems, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, strings.TrimPrefix(p.String(), path))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return cfg
}

// TestRTRRouterPrefixes: an address in rtr.routers is its host prefix.
func TestRTRRouterPrefixes(t *testing.T) {
	r := RTRConfig{Routers: []string{"10.0.0.1", "10.1.0.0/29", "2001:db8::1", "::ffff:10.0.0.2"}}
	var got []string
	for _, p := range r.RouterPrefixes() {
		got = append(got, p.String())
	}
	want := []string{"10.0.0.1/32", "10.1.0.0/29", "2001:db8::1/128", "10.0.0.2/32"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("RouterPrefixes() = %q, want %q", got, want)
	}
}
