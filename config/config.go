// Package config loads routewarden's configuration file (YAML), applies
// ROUTEWARDEN_* environment overrides and defaults through viper, and validates
// it, reporting every problem at once with file, line and key.
package config

import "time"

// Config is routewarden's configuration. Keys are camelCase in the file; the
// environment overrides them as ROUTEWARDEN_SECTION_KEY (e.g. ROUTEWARDEN_BGP_ASN).
type Config struct {
	Cluster ClusterConfig         `mapstructure:"cluster" yaml:"cluster"`
	Rules   map[string]RuleConfig `mapstructure:"rules" yaml:"rules"`
	BGP     BGPConfig             `mapstructure:"bgp" yaml:"bgp"`
	Log     LogConfig             `mapstructure:"log" yaml:"log"`
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
}

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

// Defaults are the values of keys the file leaves out.
var defaults = map[string]any{
	"bgp.listenPort":              179,
	"bgp.gracefulRestart.window":  "120s",
	"bgp.gracefulRestart.enabled": true,
	"log.level":                   "info",
	"log.format":                  "auto",
}
