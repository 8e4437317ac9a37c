package dump

import (
	"bytes"
	"fmt"
)

// sniff names a dump routewarden cannot read but recognises: a router's text
// output where its JSON is wanted. nil when it is none of those.
func sniff(name string, head []byte) error {
	trimmed := bytes.TrimSpace(head)
	if bytes.HasPrefix(trimmed, []byte("BGP table version")) || bytes.Contains(head, []byte("\nStatus codes:")) ||
		bytes.HasPrefix(trimmed, []byte("BGP routing table entry for")) {
		return fmt.Errorf("%s: this is FRR's text output (show bgp … without json), which routewarden does not read: "+
			"run it with json, vtysh -c 'show bgp ipv4 unicast json' (or 'json detail', which adds communities)", name)
	}
	return nil
}
