package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/validator"
)

// failOnValues are --fail-on's values, least severe first; never turns findings into exit 0.
var failOnValues = []string{"info", "warning", "critical", "never"}

// choice checks a flag's value against its valid values, like the config key
// it mirrors: the message lists them all.
func choice(flag, value string, valid []string) error {
	if slices.Contains(valid, value) {
		return nil
	}
	msg := fmt.Sprintf("%s %q: expected one of %s", flag, value, strings.Join(valid, ", "))
	if near := nearest(value, valid); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return errors.New(msg)
}

// nearest is the valid value a typo most likely meant: the same letters
// without dashes, underscores or case, or a value it starts.
func nearest(value string, valid []string) string {
	squash := func(s string) string { return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(s)) }
	for _, v := range valid {
		if squash(v) == squash(value) {
			return v
		}
	}
	for _, v := range valid {
		if len(value) >= 3 && strings.HasPrefix(v, strings.ToLower(value)) {
			return v
		}
	}
	return ""
}

// usageErrs joins every usage problem into one usage error (nil when none),
// listed like configuration problems.
func usageErrs(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return &exitError{code: ExitUsage, err: errs[0]}
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return &exitError{code: ExitUsage, err: fmt.Errorf("%d usage problem(s):\n  %s", len(errs),
		strings.Join(msgs, "\n  "))}
}

// reportFlags are the output flags the one-shot commands share.
type reportFlags struct {
	output, failOn string
}

// threshold is --fail-on parsed: findings at or above sev fail the command, unless never.
type threshold struct {
	sev   validator.Severity
	never bool
}

// trips reports whether a worst severity of worst fails the command.
func (t threshold) trips(worst validator.Severity) bool {
	return !t.never && worst != 0 && worst >= t.sev
}

// parse validates -o against formats (a former name, -o text, becomes
// today's) and --fail-on, adding problems to errs.
func (r *reportFlags) parse(errs *[]error, formats ...string) threshold {
	r.output = outputName(r.output)
	if err := choice("-o", r.output, formats); err != nil {
		*errs = append(*errs, err)
	}
	if err := choice("--fail-on", r.failOn, failOnValues); err != nil {
		*errs = append(*errs, err)
		return threshold{never: true}
	}
	if r.failOn == "never" {
		return threshold{never: true}
	}
	sev, _ := validator.ParseSeverity(r.failOn)
	return threshold{sev: sev}
}

// validateIPAMMode validates --ipam-mode like cluster.ipamMode.
func validateIPAMMode(errs *[]error, mode string) {
	if mode == "" {
		return
	}
	if err := choice("--ipam-mode", mode, config.IPAMModes); err != nil {
		*errs = append(*errs, err)
	}
}

// clusterOptions resolves the IPAM mode (--ipam-mode, then the config file)
// and the configured pod ranges.
func clusterOptions(cfg *config.Config, ipamFlag string) cilium.ClusterOptions {
	opts := cilium.ClusterOptions{PodRanges: cfg.PodRanges(), CiliumNamespace: cfg.Kubernetes.CiliumNamespace}
	switch {
	case ipamFlag != "":
		opts.IPAMMode, opts.ModeSource = validator.IPAMMode(ipamFlag), "--ipam-mode"
	case cfg.Cluster.IPAMMode != "":
		opts.IPAMMode, opts.ModeSource = validator.IPAMMode(cfg.Cluster.IPAMMode), "config"
	}
	return opts
}
