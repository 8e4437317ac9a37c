package roa

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the set as JSON: {"roas": [...], "unresolved": [...]}.
func WriteJSON(w io.Writer, s Set) error {
	if s.ROAs == nil {
		s.ROAs = []ROA{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// slurm is an RFC 8416 SLURM file: the set as locally added assertions, which
// a relying party (Routinator, rpki-client, StayRTR, FORT) can serve.
type slurm struct {
	Version    int             `json:"slurmVersion"`
	Filters    slurmFilters    `json:"validationOutputFilters"`
	Assertions slurmAssertions `json:"locallyAddedAssertions"`
}

type slurmFilters struct {
	Prefix []struct{} `json:"prefixFilters"`
	BGPsec []struct{} `json:"bgpsecFilters"`
}

type slurmAssertions struct {
	Prefix []slurmPrefix `json:"prefixAssertions"`
	BGPsec []struct{}    `json:"bgpsecAssertions"`
}

type slurmPrefix struct {
	ASN     uint32 `json:"asn"`
	Prefix  string `json:"prefix"`
	MaxLen  uint8  `json:"maxPrefixLength"`
	Comment string `json:"comment,omitempty"`
}

// WriteSLURM writes the set as an RFC 8416 SLURM file.
func WriteSLURM(w io.Writer, s Set) error {
	out := slurm{Version: 1, Filters: slurmFilters{Prefix: []struct{}{}, BGPsec: []struct{}{}},
		Assertions: slurmAssertions{Prefix: []slurmPrefix{}, BGPsec: []struct{}{}}}
	for _, r := range s.ROAs {
		out.Assertions.Prefix = append(out.Assertions.Prefix,
			slurmPrefix{ASN: r.ASN, Prefix: r.Prefix.String(), MaxLen: r.MaxLen, Comment: r.Why})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
