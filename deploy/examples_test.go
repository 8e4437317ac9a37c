package deploy

import (
	"os/exec"
	"testing"

	"github.com/routewarden/routewarden/internal/testam"
)

// TestExampleAlertmanagerConfig: Alertmanager's own checker accepts the example route.
func TestExampleAlertmanagerConfig(t *testing.T) {
	amtool := testam.RequireBinary(t, "AMTOOL", "/usr/bin/amtool", "prometheus-alertmanager")
	if out, err := exec.Command(amtool, "check-config", "examples/alertmanager.yml").CombinedOutput(); err != nil {
		t.Fatalf("amtool check-config: %v\n%s", err, out)
	}
}

// TestExampleFRRConfig: FRR's own parser accepts the ToR snippet.
func TestExampleFRRConfig(t *testing.T) {
	vtysh := testam.RequireBinary(t, "VTYSH", "/usr/bin/vtysh", "frr")
	if out, err := exec.Command(vtysh, "--dryrun", "-f", "examples/frr-tor.conf").CombinedOutput(); err != nil {
		t.Fatalf("vtysh --dryrun: %v\n%s", err, out)
	}
}
