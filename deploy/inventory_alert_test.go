package deploy

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/alert"
)

// TestInventoryAlertAgrees: the alert routewarden sends while it cannot read
// the cluster, the chart's PrometheusRule backstop and the Alertmanager
// example's inhibition use one name and one severity.
func TestInventoryAlertAgrees(t *testing.T) {
	pr := mustFind(t, parseObjects(t, mustRender(t, "", "--set", "prometheusRule.enabled=true")), "PrometheusRule", "")
	found := false
	for _, g := range asList(dig(pr, "spec", "groups")) {
		for _, r := range asList(dig(g, "rules")) {
			if !strings.Contains(asString(dig(r, "expr")), "routewarden_inventory_available") {
				continue
			}
			found = true
			if name, sev := asString(dig(r, "alert")), asString(dig(r, "labels", "severity")); name != alert.AlertInventoryUnavailable ||
				sev != alert.InventoryUnavailableSeverity {
				t.Errorf("PrometheusRule: %s (%s), routewarden sends %s (%s)", name, sev, alert.AlertInventoryUnavailable,
					alert.InventoryUnavailableSeverity)
			}
		}
	}
	if !found {
		t.Fatal("the PrometheusRule has no alert on routewarden_inventory_available")
	}
	data, err := os.ReadFile("examples/alertmanager.yml")
	if err != nil {
		t.Fatal(err)
	}
	var am struct {
		Inhibit []struct {
			Source []string `yaml:"source_matchers"`
		} `yaml:"inhibit_rules"`
	}
	if err := yaml.Unmarshal(data, &am); err != nil {
		t.Fatal(err)
	}
	want := `alertname = "` + alert.AlertInventoryUnavailable + `"`
	if len(am.Inhibit) == 0 || !strings.Contains(strings.Join(am.Inhibit[0].Source, " "), want) {
		t.Errorf("examples/alertmanager.yml inhibits on %v, want %s", am.Inhibit, want)
	}
}
