package cli

import (
	"fmt"
	"net/netip"
	"os"
	"strings"

	"github.com/routewarden/routewarden/alert"
	"github.com/routewarden/routewarden/bgp"
	"github.com/routewarden/routewarden/config"
)

// bgpConfig translates the validated config, reading the MD5 password files.
func bgpConfig(c config.BGPConfig) (bgp.Config, error) {
	out := bgp.Config{ASN: c.ASN, ListenAddresses: c.ListenAddresses, ListenPort: int32(c.ListenPort),
		GracefulRestart: c.GracefulRestart.Enabled, GraceWindow: c.GracefulRestart.Window}
	out.RouterID, _ = netip.ParseAddr(c.RouterID)
	for i, n := range c.Neighbors {
		s, err := peerSettings(n.PeerSettings)
		if err != nil {
			return out, fmt.Errorf("bgp.neighbors[%d]: %w", i, err)
		}
		addr, _ := netip.ParseAddr(n.Address)
		out.Neighbors = append(out.Neighbors, bgp.Neighbor{Address: addr, PeerSettings: s})
	}
	for i, d := range c.DynamicNeighbors {
		s, err := peerSettings(d.PeerSettings)
		if err != nil {
			return out, fmt.Errorf("bgp.dynamicNeighbors[%d]: %w", i, err)
		}
		p, _ := netip.ParsePrefix(d.Prefix)
		out.Dynamic = append(out.Dynamic, bgp.DynamicRange{Prefix: p.Masked(), PeerSettings: s})
	}
	return out, out.Validate()
}

func peerSettings(s config.PeerSettings) (bgp.PeerSettings, error) {
	out := bgp.PeerSettings{ASN: s.ASN, HoldTime: s.HoldTime, MaxPrefixes: s.MaxPrefixes, Relayed: s.Relayed()}
	if s.PasswordFile != "" {
		b, err := os.ReadFile(s.PasswordFile)
		if err != nil {
			return out, fmt.Errorf("reading the TCP MD5 password: %w", err)
		}
		out.Password = strings.TrimRight(string(b), "\r\n")
	}
	return out, nil
}

// alertSinks builds one sink per Alertmanager (an HA pair gets two) and webhook.
func alertSinks(c config.AlertingConfig) ([]alert.Sink, error) {
	var sinks []alert.Sink
	for i, e := range c.Alertmanagers {
		s, err := alert.NewAlertmanager(alert.AlertmanagerConfig{URL: e.URL, Timeout: e.Timeout, TLS: tlsOf(e),
			BasicAuth: alert.BasicAuth{Username: e.Username, PasswordFile: e.PasswordFile}, BearerTokenFile: e.BearerTokenFile})
		if err != nil {
			return nil, fmt.Errorf("alerting.alertmanagers[%d]: %w", i, err)
		}
		sinks = append(sinks, s)
	}
	for i, e := range c.Webhooks {
		s, err := alert.NewWebhook(alert.WebhookConfig{URL: e.URL, Timeout: e.Timeout, TLS: tlsOf(e),
			BasicAuth: alert.BasicAuth{Username: e.Username, PasswordFile: e.PasswordFile}, BearerTokenFile: e.BearerTokenFile,
			ExternalURL: c.ExternalURL})
		if err != nil {
			return nil, fmt.Errorf("alerting.webhooks[%d]: %w", i, err)
		}
		sinks = append(sinks, s)
	}
	return sinks, nil
}

func tlsOf(e config.EndpointConfig) alert.TLSConfig {
	return alert.TLSConfig{CAFile: e.CAFile, CertFile: e.CertFile, KeyFile: e.KeyFile, InsecureSkipVerify: e.InsecureSkipVerify}
}
