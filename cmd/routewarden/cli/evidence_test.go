package cli

import (
	"strings"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

// TestUnjudgedNotes: check says once per dump format which attributes its
// dumps do not carry and the rules would have judged, with the command that
// shows them; nothing when the cluster sets no attributes to judge.
func TestUnjudgedNotes(t *testing.T) {
	plain := []validator.Route{{Attributes: &validator.Attributes{
		Unseen: validator.UnseenCommunities | validator.UnseenLargeCommunities}}}
	var set routeSet
	set.add("a.json", "frr", plain)
	set.add("b.json", "frr", plain)
	set.add("c.txt", "bird", []validator.Route{{Attributes: &validator.Attributes{}}})
	intent := &validator.Cluster{Advertised: &validator.AdvertisedAttributes{}}
	notes := unjudgedNotes(intent, set)
	if len(notes) != 1 || !strings.Contains(notes[0], "not judged: communities, large communities") ||
		!strings.Contains(notes[0], "show bgp ipv4 unicast json detail") {
		t.Errorf("notes %q, want one for the frr dumps naming the command", notes)
	}
	if notes := unjudgedNotes(&validator.Cluster{}, set); len(notes) != 0 {
		t.Errorf("notes %q without attributes to judge, want none", notes)
	}
}
