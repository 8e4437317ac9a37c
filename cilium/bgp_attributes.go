package cilium

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// BGPAttributes is a CiliumBGPAdvertisement advertisement's attributes: the
// communities and local preference Cilium attaches to the routes it selects.
type BGPAttributes struct {
	Communities *struct {
		Standard  []string `yaml:"standard"`
		WellKnown []string `yaml:"wellKnown"`
		Large     []string `yaml:"large"`
	} `yaml:"communities"`
	LocalPreference *int64 `yaml:"localPreference"`
}

// wellKnownCommunities are the values of Cilium's wellKnown names (RFC 1997,
// 7999, 8326, 8642, 9494 and the IANA registry), as its CRD maps them.
var wellKnownCommunities = map[string]string{
	"internet": "0:0", "planned-shut": "65535:0", "accept-own": "65535:1", "route-filter-translated-v4": "65535:2",
	"route-filter-v4": "65535:3", "route-filter-translated-v6": "65535:4", "route-filter-v6": "65535:5",
	"llgr-stale": "65535:6", "no-llgr": "65535:7", "blackhole": "65535:666", "no-export": "65535:65281",
	"no-advertise": "65535:65282", "no-export-subconfed": "65535:65283", "no-peer": "65535:65284",
}

// attrValues are one advertisement's attributes in the route's text forms.
type attrValues struct {
	std, large []string // sorted, unique
	localPref  *uint32
}

func (v attrValues) set() bool { return len(v.std) > 0 || len(v.large) > 0 || v.localPref != nil }

// String describes the values in one text: "communities 65010:100, local
// preference 200"; "" when none is set.
func (v attrValues) String() string {
	var parts []string
	if len(v.std) > 0 {
		parts = append(parts, "communities "+strings.Join(v.std, " "))
	}
	if len(v.large) > 0 {
		parts = append(parts, "large communities "+strings.Join(v.large, " "))
	}
	if v.localPref != nil {
		parts = append(parts, "local preference "+strconv.FormatUint(uint64(*v.localPref), 10))
	}
	return strings.Join(parts, ", ")
}

// values normalizes the attributes: standard communities as "ASN:VALUE"
// (from that form or one 32-bit number), well-known ones by value, large
// ones as "GLOBAL:LOCAL1:LOCAL2". Every bad value is reported.
func (a *BGPAttributes) values() (attrValues, error) {
	var v attrValues
	if a == nil {
		return v, nil
	}
	var errs []string
	if c := a.Communities; c != nil {
		for i, s := range c.Standard {
			if n, ok := standardCommunity(s); ok {
				v.std = append(v.std, n)
			} else {
				errs = append(errs, fmt.Sprintf("communities.standard[%d] %q is not a standard community "+
					"(ASN:VALUE, each 0-65535, or a 32-bit number)", i, s))
			}
		}
		for i, s := range c.WellKnown {
			if n, ok := wellKnownCommunities[s]; ok {
				v.std = append(v.std, n)
			} else {
				errs = append(errs, fmt.Sprintf("communities.wellKnown[%d] %q is not a well-known community name", i, s))
			}
		}
		for i, s := range c.Large {
			if n, ok := largeCommunity(s); ok {
				v.large = append(v.large, n)
			} else {
				errs = append(errs, fmt.Sprintf("communities.large[%d] %q is not a large community "+
					"(GLOBAL:LOCAL1:LOCAL2, each a 32-bit number)", i, s))
			}
		}
	}
	if p := a.LocalPreference; p != nil {
		if *p < 0 || *p > 1<<32-1 {
			errs = append(errs, fmt.Sprintf("localPreference %d is not a 32-bit unsigned number", *p))
		} else {
			u := uint32(*p)
			v.localPref = &u
		}
	}
	slices.Sort(v.std)
	slices.Sort(v.large)
	v.std, v.large = slices.Compact(v.std), slices.Compact(v.large)
	if len(errs) > 0 {
		return v, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return v, nil
}

// standardCommunity reads "ASN:VALUE" or a 32-bit number into "ASN:VALUE".
func standardCommunity(s string) (string, bool) {
	if hi, lo, ok := strings.Cut(s, ":"); ok {
		h, err1 := strconv.ParseUint(hi, 10, 16)
		l, err2 := strconv.ParseUint(lo, 10, 16)
		return strconv.FormatUint(h, 10) + ":" + strconv.FormatUint(l, 10), err1 == nil && err2 == nil
	}
	n, err := strconv.ParseUint(s, 10, 32)
	return strconv.FormatUint(n>>16, 10) + ":" + strconv.FormatUint(n&0xffff, 10), err == nil
}

// largeCommunity reads "GLOBAL:LOCAL1:LOCAL2".
func largeCommunity(s string) (string, bool) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return "", false
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return "", false
		}
		parts[i] = strconv.FormatUint(n, 10)
	}
	return strings.Join(parts, ":"), true
}
