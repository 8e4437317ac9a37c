package main

import (
	"slices"
	"strings"

	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/kube"
	"github.com/routewarden/routewarden/validator"
)

// reportFlags are the output flags check and validate-config share.
type reportFlags struct {
	output, failOn string
}

// parse checks -o against the allowed formats and parses --fail-on.
func (r reportFlags) parse(formats ...string) (validator.Severity, error) {
	failOn, err := validator.ParseSeverity(r.failOn)
	if err != nil {
		return 0, usageErr("--fail-on: %v", err)
	}
	if !slices.Contains(formats, r.output) {
		return 0, usageErr("-o %q: expected %s", r.output, strings.Join(formats, " or "))
	}
	return failOn, nil
}

// clusterOptions resolves the IPAM mode (--ipam-mode, then the config file)
// and the configured pod ranges.
func clusterOptions(cfg *config.Config, ipamFlag string) kube.ClusterOptions {
	opts := kube.ClusterOptions{PodRanges: cfg.PodRanges(), CiliumNamespace: cfg.Kubernetes.CiliumNamespace}
	switch {
	case ipamFlag != "":
		opts.IPAMMode, opts.ModeSource = validator.IPAMMode(ipamFlag), "--ipam-mode"
	case cfg.Cluster.IPAMMode != "":
		opts.IPAMMode, opts.ModeSource = validator.IPAMMode(cfg.Cluster.IPAMMode), "config"
	}
	return opts
}
