package validator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The communities part of the rule attribute-mismatch (attribute_mismatch.go).

// attrDiff is one attribute a path carries other than expected.
type attrDiff struct{ what, got, want string }

func (d attrDiff) String() string { return d.what + " " + d.got + ", expected " + d.want }

// diffs compares a path's communities, large communities and, on iBGP (no
// AS path), local preference with the intent; nil intent: nothing judged.
func (in *AttributeIntent) diffs(a *Attributes) []attrDiff {
	if in == nil {
		return nil
	}
	var out []attrDiff
	for _, c := range []struct {
		what      string
		got, want []string
		unseen    AttrSet
	}{{AttrCommunities, a.Communities, in.Communities, UnseenCommunities},
		{AttrLargeCommunities, a.LargeCommunities, in.LargeCommunities, UnseenLargeCommunities}} {
		if slices.Contains(in.Disputed, c.what) || a.Unseen.Has(c.unseen) {
			continue
		}
		got := slices.Clone(c.got)
		slices.Sort(got)
		if got = slices.Compact(got); !slices.Equal(got, c.want) {
			out = append(out, attrDiff{what: c.what, got: listOrNone(got), want: listOrNone(c.want)})
		}
	}
	// Without the AS path an eBGP path cannot be told from an iBGP one.
	if len(in.LocalPrefs) > 0 && len(a.ASPath) == 0 && !slices.Contains(in.Disputed, AttrLocalPref) &&
		a.Unseen&(UnseenLocalPref|UnseenASPath) == 0 {
		// Cilium applies the largest localPreference of the advertisements
		// selecting the prefix.
		want := slices.Max(in.LocalPrefs)
		if !a.HasLocalPref || a.LocalPref != want {
			got := "none"
			if a.HasLocalPref {
				got = strconv.FormatUint(uint64(a.LocalPref), 10)
			}
			out = append(out, attrDiff{what: AttrLocalPref, got: got, want: strconv.FormatUint(uint64(want), 10)})
		}
	}
	return out
}

// explain writes the finding's message and hint: expected and received, and
// the advertisements, named as overlapping when several select the prefix.
func (in *AttributeIntent) explain(node string, r Route, diffs []attrDiff) (msg, hint string) {
	parts := make([]string, len(diffs))
	for i, d := range diffs {
		parts[i] = d.String()
	}
	msg = fmt.Sprintf("%s announces %s %s with %s.", node, r.Prefix, r.Via(), strings.Join(parts, "; "))
	var missing, extra []string
	for _, d := range diffs {
		got, want := strings.Fields(d.got), strings.Fields(d.want)
		if d.what != AttrCommunities && d.what != AttrLargeCommunities {
			continue
		}
		for _, c := range want {
			if c != "none" && !slices.Contains(got, c) {
				missing = append(missing, c)
			}
		}
		for _, c := range got {
			if c != "none" && !slices.Contains(want, c) {
				extra = append(extra, c)
			}
		}
	}
	var b strings.Builder
	if len(missing) > 0 {
		b.WriteString("Missing " + strings.Join(missing, " ") + ". ")
	}
	if len(extra) > 0 {
		b.WriteString("Not expected: " + strings.Join(extra, " ") + ". ")
	}
	if len(in.Advertisements) > 1 && len(in.Disputed) == 0 && !in.Separate {
		fmt.Fprintf(&b, "The CiliumBGPAdvertisements %s overlap on this prefix; expected is the union of their "+
			"communities and the largest of their local preferences, as Cilium merges them since the fix of cilium/cilium#35721 (releases before it keep only one "+
			"advertisement's and silently drop the others' communities). Give the prefix one advertisement, or make "+
			"sure the node runs a release that merges them. ", strings.Join(in.Advertisements, ", "))
	} else {
		fmt.Fprintf(&b, "Compare the attributes of CiliumBGPAdvertisement %s with what the node sends (cilium bgp "+
			"routes advertised), and check whether a router on the way rewrites them: the ToR's policy may key on them. ",
			strings.Join(in.Advertisements, ", "))
	}
	for _, d := range diffs {
		if d.what == "origin AS" {
			b.WriteString(originAdvice)
		}
	}
	b.WriteString(in.disputedNote())
	return msg, strings.TrimSpace(b.String())
}

// disputedNote says which attributes were not judged because the node's
// peers are told them differently; "" when none.
func (in *AttributeIntent) disputedNote() string {
	if in == nil || len(in.Disputed) == 0 {
		return ""
	}
	return " Not judged: " + strings.Join(in.Disputed, ", ") + ": the node's peers receiving this prefix are told " +
		"different ones (the families of their CiliumBGPPeerConfigs select different advertisements among " +
		strings.Join(in.Advertisements, ", ") + "), and which peer this path was sent to cannot be told: the " +
		"address the node sent it to (its session's local address, from BGP Peer Up) is none of, or more than one " +
		"of, their CiliumBGPClusterConfig peerAddresses."
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, " ")
}
