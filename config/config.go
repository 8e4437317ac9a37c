// Package config loads routewarden's configuration file (YAML), applies
// ROUTEWARDEN_* environment overrides and defaults through viper, and validates
// it, reporting every problem at once with file, line and key.
package config

import (
	"time"
)

// Config is routewarden's configuration. Keys are camelCase in the file; the
// environment overrides them as ROUTEWARDEN_ and the key's path in upper snake
// case (ROUTEWARDEN_BGP_LISTEN_PORT; Keys lists them, env.go derives them).
type Config struct {
	Cluster    ClusterConfig         `mapstructure:"cluster" yaml:"cluster"`
	Rules      map[string]RuleConfig `mapstructure:"rules" yaml:"rules"`
	BGP        BGPConfig             `mapstructure:"bgp" yaml:"bgp"`
	Kubernetes KubernetesConfig      `mapstructure:"kubernetes" yaml:"kubernetes"`
	Validation ValidationConfig      `mapstructure:"validation" yaml:"validation"`
	Alerting   AlertingConfig        `mapstructure:"alerting" yaml:"alerting"`
	HTTP       HTTPConfig            `mapstructure:"http" yaml:"http"`
	Log        LogConfig             `mapstructure:"log" yaml:"log"`
	// RTR is the RPKI-RTR cache server (config/rtr.go).
	RTR RTRConfig `mapstructure:"rtr" yaml:"rtr"`
}

// KubernetesConfig says how to reach the API server (run).
type KubernetesConfig struct {
	// Kubeconfig and Context; both empty means the in-cluster config.
	Kubeconfig string `mapstructure:"kubeconfig" yaml:"kubeconfig"`
	Context    string `mapstructure:"context" yaml:"context"`
	// TombstoneTTL is how long deleted nodes are remembered for findings.
	TombstoneTTL time.Duration `mapstructure:"tombstoneTTL" yaml:"tombstoneTTL"`
	// CiliumNamespace is where the cilium-config ConfigMap lives.
	CiliumNamespace string `mapstructure:"ciliumNamespace" yaml:"ciliumNamespace"`
}

// ValidationConfig tunes continuous validation (run).
type ValidationConfig struct {
	// HoldDown is how long a finding must persist before it fires (0 allowed).
	HoldDown time.Duration `mapstructure:"holdDown" yaml:"holdDown"`
	// WarmupTimeout ends warm-up when some expected peer never sends End-of-RIB.
	WarmupTimeout time.Duration `mapstructure:"warmupTimeout" yaml:"warmupTimeout"`
	Debounce      time.Duration `mapstructure:"debounce" yaml:"debounce"`
	// Convergence are the budgets of route changes (config/convergence.go).
	Convergence ConvergenceConfig `mapstructure:"convergence" yaml:"convergence"`
}

// AlertingConfig says where alerts go (run).
type AlertingConfig struct {
	Alertmanagers  []EndpointConfig `mapstructure:"alertmanagers" yaml:"alertmanagers"`
	Webhooks       []EndpointConfig `mapstructure:"webhooks" yaml:"webhooks"`
	ResendInterval time.Duration    `mapstructure:"resendInterval" yaml:"resendInterval"`
	// RunbookBase is where the runbooks are: a URL ending in / is a directory
	// of pages named rule-id.md (the default, docs/rules/), any other one page
	// with a section a rule (#rule-id).
	RunbookBase string `mapstructure:"runbookBase" yaml:"runbookBase"`
	// ExternalURL is routewarden's own URL as seen from Alertmanager users (generatorURL).
	ExternalURL string `mapstructure:"externalURL" yaml:"externalURL"`
}

// EndpointConfig is an Alertmanager or webhook receiver. Secrets come from files.
type EndpointConfig struct {
	URL                string        `mapstructure:"url" yaml:"url"`
	Timeout            time.Duration `mapstructure:"timeout" yaml:"timeout"`
	CAFile             string        `mapstructure:"caFile" yaml:"caFile"`
	CertFile           string        `mapstructure:"certFile" yaml:"certFile"`
	KeyFile            string        `mapstructure:"keyFile" yaml:"keyFile"`
	InsecureSkipVerify bool          `mapstructure:"insecureSkipVerify" yaml:"insecureSkipVerify"`
	Username           string        `mapstructure:"username" yaml:"username"`
	PasswordFile       string        `mapstructure:"passwordFile" yaml:"passwordFile"`
	BearerTokenFile    string        `mapstructure:"bearerTokenFile" yaml:"bearerTokenFile"`
}

// HTTPConfig is the metrics and API listener (run).
type HTTPConfig struct {
	Listen string `mapstructure:"listen" yaml:"listen"`
}

// ClusterConfig describes the cluster beyond what its objects say.
type ClusterConfig struct {
	// Name is the cluster label on alerts.
	Name string `mapstructure:"name" yaml:"name"`
	// IPAMMode overrides cilium-config's ipam.
	IPAMMode string `mapstructure:"ipamMode" yaml:"ipamMode"`
	// PodRanges are pod ranges in addition to those found in cilium-config.
	PodRanges []string `mapstructure:"podRanges" yaml:"podRanges"`
	// AllowedRanges are legitimate announced ranges that are neither pod ranges
	// nor LoadBalancer pools.
	AllowedRanges []string `mapstructure:"allowedRanges" yaml:"allowedRanges"`
	// NetworkRanges are the network's ranges (uplinks, infrastructure, other
	// tenants): a route there that no node announces is counted, not judged.
	NetworkRanges []string `mapstructure:"networkRanges" yaml:"networkRanges"`
	// NodeSelector limits missing-route to the nodes this collector sees.
	NodeSelector map[string]string `mapstructure:"nodeSelector" yaml:"nodeSelector"`
}

// RuleConfig adjusts one rule.
type RuleConfig struct {
	Enabled  *bool  `mapstructure:"enabled" yaml:"enabled"`
	Severity string `mapstructure:"severity" yaml:"severity"`
}

// BGPConfig is the collector's BGP side.
type BGPConfig struct {
	ASN      uint32 `mapstructure:"asn" yaml:"asn"`
	RouterID string `mapstructure:"routerId" yaml:"routerId"`
	// PeerAddress is the address the nodes peer with (for validate-config's cross-checks).
	PeerAddress      string                  `mapstructure:"peerAddress" yaml:"peerAddress"`
	ListenAddresses  []string                `mapstructure:"listenAddresses" yaml:"listenAddresses"`
	ListenPort       int                     `mapstructure:"listenPort" yaml:"listenPort"`
	GracefulRestart  GracefulRestartConfig   `mapstructure:"gracefulRestart" yaml:"gracefulRestart"`
	Neighbors        []NeighborConfig        `mapstructure:"neighbors" yaml:"neighbors"`
	DynamicNeighbors []DynamicNeighborConfig `mapstructure:"dynamicNeighbors" yaml:"dynamicNeighbors"`
	// BMP is the BMP station (config/bmp.go).
	BMP BMPConfig `mapstructure:"bmp" yaml:"bmp"`
}

// GracefulRestartConfig is the collector's graceful-restart (helper) setting.
type GracefulRestartConfig struct {
	Enabled bool `mapstructure:"enabled" yaml:"enabled"`
	// Window is the longest restart time routewarden honours for a peer's stale paths.
	Window time.Duration `mapstructure:"window" yaml:"window"`
}

// PeerSettings are the settings static and dynamic neighbors share.
type PeerSettings struct {
	// ASN is the peer's ASN; for dynamic neighbors 0 accepts any.
	ASN          uint32        `mapstructure:"asn" yaml:"asn"`
	PasswordFile string        `mapstructure:"passwordFile" yaml:"passwordFile"`
	HoldTime     time.Duration `mapstructure:"holdTime" yaml:"holdTime"`
	MaxPrefixes  uint32        `mapstructure:"maxPrefixes" yaml:"maxPrefixes"`
	// Role is what the peer is: "node" (the default: a Cilium node peering
	// with routewarden, its paths carry what the node sent) or "tor" (a
	// ToR relaying the nodes' paths, routewarden behind it: their
	// communities and local preference are the ToR's policy's, so the rule
	// attribute-mismatch judges only their origin AS).
	Role string `mapstructure:"role" yaml:"role"`
}

// PeerRoles are the values of bgp.neighbors[].role and bgp.dynamicNeighbors[].role.
var PeerRoles = []string{RoleNode, RoleToR}

// The peer roles.
const (
	RoleNode = "node"
	RoleToR  = "tor"
)

// Relayed reports whether the peer relays other speakers' paths (role tor).
func (s PeerSettings) Relayed() bool { return s.Role == RoleToR }

// NeighborConfig is a static passive neighbor.
type NeighborConfig struct {
	Address      string `mapstructure:"address" yaml:"address"`
	PeerSettings `mapstructure:",squash" yaml:",inline"`
}

// DynamicNeighborConfig accepts any peer from a prefix range.
type DynamicNeighborConfig struct {
	Prefix       string `mapstructure:"prefix" yaml:"prefix"`
	PeerSettings `mapstructure:",squash" yaml:",inline"`
}

// LogConfig sets logging.
type LogConfig struct {
	Level  string `mapstructure:"level" yaml:"level"`
	Format string `mapstructure:"format" yaml:"format"`
}

// DefaultRunbookBase is alerting.runbookBase's default: the runbooks in this
// repository's docs/rules/, one a rule (a test checks each exists).
const DefaultRunbookBase = "https://github.com/routewarden/routewarden/blob/main/docs/rules/"

// Defaults are the values of keys the file leaves out.
var defaults = map[string]any{
	"bgp.listenPort":              179,
	"bgp.gracefulRestart.window":  "120s",
	"bgp.gracefulRestart.enabled": true,
	"log.level":                   "info",
	"kubernetes.tombstoneTTL":     "1h",
	"kubernetes.ciliumNamespace":  "kube-system",
	"validation.holdDown":         "30s",
	"validation.warmupTimeout":    "2m",
	"validation.debounce":         "20ms",
	"alerting.resendInterval":     "1m",
	"alerting.runbookBase":        DefaultRunbookBase,
	"http.listen":                 ":9479",
	"log.format":                  "auto",
}
