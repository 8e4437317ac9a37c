package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/golden"
	"github.com/routewarden/routewarden/internal/testdoc"
	"github.com/routewarden/routewarden/validator"
)

// chartSchema reads values.schema.json as YAML nodes, which keep the keys' order.
func chartSchema(t *testing.T) *yaml.Node {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("values.schema.json: %v", err)
	}
	return doc.Content[0]
}

// get returns the value of key in a mapping node, nil when absent.
func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// schemaWalk visits every property of the schema below path, depth first in document order, following
// $ref and array items; visit gets the property's schema (resolved) and whether its parent requires it.
// A definition used again is not expanded again: seen maps it to the path it was first expanded at.
func schemaWalk(root, s *yaml.Node, path string, seen map[string]string,
	visit func(path string, s *yaml.Node, required bool)) {
	if ref := get(s, "$ref"); ref != nil {
		if _, ok := seen[ref.Value]; ok {
			return
		}
		seen[ref.Value] = path
		s = get(get(root, "definitions"), strings.TrimPrefix(ref.Value, "#/definitions/"))
	}
	if items := get(s, "items"); items != nil && get(s, "x-kubernetes") == nil {
		schemaWalk(root, items, path+"[]", seen, visit)
		return
	}
	props := get(s, "properties")
	if props == nil {
		return
	}
	var required []string
	if r := get(s, "required"); r != nil {
		_ = r.Decode(&required)
	}
	for i := 0; i+1 < len(props.Content); i += 2 {
		p, name := props.Content[i+1], props.Content[i].Value
		full := strings.TrimPrefix(path+"."+name, ".")
		visit(full, p, slices.Contains(required, name))
		schemaWalk(root, p, full, seen, visit)
	}
}

// valuesTable is the chart README's table of values: one row a leaf (or map, list or Kubernetes object) of
// the schema, with its type, default (from values.yaml) and description.
func valuesTable(t *testing.T) string {
	t.Helper()
	root := chartSchema(t)
	b, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(b, &values); err != nil {
		t.Fatal(err)
	}
	var rows []string
	seen := map[string]string{}
	schemaWalk(root, root, "", seen, func(path string, s *yaml.Node, required bool) {
		resolved := s
		if ref := get(s, "$ref"); ref != nil {
			resolved = get(get(root, "definitions"), strings.TrimPrefix(ref.Value, "#/definitions/"))
		}
		desc := ""
		for _, n := range []*yaml.Node{s, resolved} {
			if d := get(n, "description"); d != nil && desc == "" {
				desc = d.Value
			}
		}
		leaf := get(resolved, "properties") == nil || get(resolved, "x-kubernetes") != nil
		if items := get(resolved, "items"); items != nil && leaf {
			leaf = get(items, "properties") == nil && get(items, "$ref") == nil
		}
		if strings.HasPrefix(desc, "Never set") || !leaf && desc == "" {
			return
		}
		def := "—"
		if v, ok := lookup(values, path); ok {
			j, _ := json.Marshal(v)
			def = "`" + string(j) + "`"
		}
		if required || strings.HasPrefix(desc, "Required") {
			def = "**required**"
		}
		typ := schemaType(s, resolved)
		for _, n := range []*yaml.Node{s, get(s, "items")} {
			if ref := get(n, "$ref"); ref != nil {
				if first, ok := seen[ref.Value]; ok && first != path && first != path+"[]" {
					typ += fmt.Sprintf(" (as `%s`)", strings.TrimSuffix(first, "[]"))
				}
			}
		}
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %s | %s |", path, typ, def,
			strings.ReplaceAll(desc, "|", "\\|")))
	})
	return "| Key | Type | Default | Description |\n|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
}

func schemaType(s, resolved *yaml.Node) string {
	if k := get(resolved, "x-kubernetes"); k != nil {
		return "Kubernetes " + k.Value
	}
	if e := get(resolved, "enum"); e != nil {
		var vals []string
		for _, v := range e.Content {
			vals = append(vals, fmt.Sprintf("`%q`", v.Value))
		}
		return "one of " + strings.Join(vals, ", ")
	}
	typ := ""
	if ty := get(resolved, "type"); ty != nil {
		typ = ty.Value
		if ty.Kind == yaml.SequenceNode {
			var ts []string
			_ = ty.Decode(&ts)
			typ = strings.Join(ts, " or ")
		}
	}
	if ref := get(s, "$ref"); ref != nil {
		typ = strings.TrimPrefix(ref.Value, "#/definitions/")
	}
	if items := get(resolved, "items"); items != nil && get(items, "type") != nil {
		typ = "list of " + get(items, "type").Value
	}
	if get(resolved, "additionalProperties") != nil && get(resolved, "properties") == nil {
		typ = "map"
	}
	if get(resolved, "pattern") != nil && strings.Contains(get(resolved, "pattern").Value, "ms|s|m|h") {
		typ = "duration"
	}
	return typ
}

// lookup finds a dotted path in the values.
func lookup(values map[string]any, path string) (any, bool) {
	var cur any = values
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

var valuesBlock = regexp.MustCompile(`(?s)(<!-- values-table:start[^>]*-->\n).*?(<!-- values-table:end -->)`)

// TestChartREADME: the chart README's values table is generated from values.schema.json and values.yaml
// (go test ./deploy -run TestChartREADME -update rewrites it).
func TestChartREADME(t *testing.T) {
	path := filepath.Join(chartDir, "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !valuesBlock.Match(readme) {
		t.Fatalf("%s has no <!-- values-table:start --> … <!-- values-table:end --> block", path)
	}
	table := valuesTable(t)
	golden.Assert(t, path, valuesBlock.ReplaceAll(readme, []byte("${1}"+strings.ReplaceAll(table, "$", "$$")+"${2}")))
}

// TestChartSchemaStrict: every object of values.schema.json rejects unknown keys (additionalProperties false, or
// a map of typed values), except Kubernetes objects passed through unchanged (x-kubernetes, which the API
// server validates).
func TestChartSchemaStrict(t *testing.T) {
	root := chartSchema(t)
	var walk func(path string, n *yaml.Node)
	walk = func(path string, n *yaml.Node) {
		if n.Kind != yaml.MappingNode {
			return
		}
		if ty := get(n, "type"); ty != nil && ty.Value == "object" && get(n, "x-kubernetes") == nil {
			if ap := get(n, "additionalProperties"); ap == nil || ap.Kind == yaml.ScalarNode && ap.Value != "false" {
				t.Errorf("%s: an object that accepts any key (want additionalProperties: false)", path)
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			walk(path+"/"+n.Content[i].Value, n.Content[i+1])
		}
	}
	walk("", root)
}

// TestChartSchemaRules: config.rules' keys in values.schema.json are the catalogue's rules
// (go test ./deploy -run TestChartSchemaRules -update rewrites them).
func TestChartSchemaRules(t *testing.T) {
	path := filepath.Join(chartDir, "values.schema.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := testdoc.ReplaceArray(b, []string{"properties", "config", "properties", "rules", "propertyNames", "enum"},
		validator.RuleIDs())
	if err != nil {
		t.Fatalf("values.schema.json: %v", err)
	}
	golden.Assert(t, path, want)
}
