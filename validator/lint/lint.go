package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/validator"
)

// Problem is one thing wrong, with where it is.
type Problem struct {
	Severity validator.Severity `json:"severity"`
	// Where is "file:line" of the object (or config key).
	Where string `json:"where"`
	// Object is "Kind name", empty for routewarden's own config.
	Object string `json:"object,omitempty"`
	// Field is the key or field path the problem is about.
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	obj := p.Object
	if obj != "" {
		obj += ": "
	}
	return fmt.Sprintf("%s: %s: %s%s: %s", p.Where, p.Severity, obj, p.Field, p.Message)
}

type reporter struct{ problems []Problem }

func (r *reporter) add(sev validator.Severity, where, object, field, format string, args ...any) {
	r.problems = append(r.problems, Problem{Severity: sev, Where: where, Object: object, Field: field,
		Message: fmt.Sprintf(format, args...)})
}

// Check runs every cross-check and returns the problems sorted by place.
func Check(in Input) []Problem {
	if in.Cilium == nil {
		in.Cilium = &cilium.Objects{}
	}
	r := &reporter{}
	checkPeering(in, r)
	checkPodCIDRAdvertisement(in, r)
	checkLegacySpeaker(in, r)
	checkSelectors(in, r)
	checkGracefulRestart(in, r)
	checkAdvertisementOverlaps(in, r)
	Sort(r.problems)
	return r.problems
}

// Sort orders problems by file, line, field and message.
func Sort(problems []Problem) {
	slices.SortStableFunc(problems, func(a, b Problem) int {
		af, al := splitWhere(a.Where)
		bf, bl := splitWhere(b.Where)
		return cmp.Or(cmp.Compare(af, bf), cmp.Compare(al, bl), cmp.Compare(a.Field, b.Field),
			cmp.Compare(a.Message, b.Message))
	})
}

// splitWhere splits "file:line" so that line 9 sorts before line 10.
func splitWhere(w string) (string, int) {
	if i := strings.LastIndexByte(w, ':'); i >= 0 {
		if n, err := strconv.Atoi(w[i+1:]); err == nil {
			return w[:i], n
		}
	}
	return w, 0
}

// The objects the checks read, where they were read (Where) and as they name them (object).
type (
	clusterConfig = cilium.Sourced[cilium.BGPClusterConfig]
	peerConfig    = cilium.Sourced[cilium.BGPPeerConfig]
	advertisement = cilium.Sourced[cilium.BGPAdvertisement]
	peeringPolicy = cilium.Sourced[cilium.BGPPeeringPolicy]
)

func where[T any](s cilium.Sourced[T]) string { return s.Pos.String() }

func ccObject(c clusterConfig) string { return "CiliumBGPClusterConfig " + c.Object.Metadata.Name }
func pcObject(p peerConfig) string    { return "CiliumBGPPeerConfig " + p.Object.Metadata.Name }
func ppObject(p peeringPolicy) string { return "CiliumBGPPeeringPolicy " + p.Object.Metadata.Name }
func adObject(a advertisement) string { return "CiliumBGPAdvertisement " + a.Object.Metadata.Name }

func (in Input) peerConfig(name string) *peerConfig {
	for i, pc := range in.Cilium.BGPPeerCfgs {
		if pc.Object.Metadata.Name == name {
			return &in.Cilium.BGPPeerCfgs[i]
		}
	}
	return nil
}

func (in Input) isCollector(a interface{ String() string }) bool {
	for _, c := range in.Collector.Addresses {
		if c.String() == a.String() {
			return true
		}
	}
	return false
}
