package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/testdoc"
	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// openAPIDoc is the part of openapi.json the checks read.
type openAPIDoc struct {
	Paths map[string]struct {
		Get struct {
			Parameters []map[string]any `json:"parameters"`
			Responses  map[string]struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"get"`
	} `json:"paths"`
	Components struct {
		Parameters map[string]map[string]any `json:"parameters"`
		Schemas    map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

func loadOpenAPI(t *testing.T) *openAPIDoc {
	t.Helper()
	var doc openAPIDoc
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return &doc
}

// TestOpenAPIDescribesEveryEndpoint: every served list endpoint is in the
// document with exactly the parameters it accepts, and the enumerations are
// the server's.
func TestOpenAPIDescribesEveryEndpoint(t *testing.T) {
	doc := loadOpenAPI(t)
	s := New("127.0.0.1:0", testSources(true), prometheus.NewRegistry(), zerolog.Nop())
	served := []string{"/api/v1/openapi.json", "/api/v1/roas"} // roas: the RTR server's, outside the paged lists
	for _, e := range s.endpoints() {
		served = append(served, e.path)
		op, ok := doc.Paths[e.path]
		if !ok {
			t.Errorf("%s is served but not in openapi.json", e.path)
			continue
		}
		var want, got []string
		for _, p := range append(slices.Clone(e.params), pagingParams...) {
			want = append(want, p.name)
			if p.valid != nil {
				ref := doc.Components.Parameters[p.name]["schema"].(map[string]any)
				if enum := fmt.Sprint(ref["enum"]); enum != fmt.Sprint(p.valid()) {
					t.Errorf("%s: parameter %s documents %s, the server accepts %v", e.path, p.name, enum, p.valid())
				}
			}
		}
		for _, p := range op.Get.Parameters {
			name := strings.TrimPrefix(fmt.Sprint(p["$ref"]), "#/components/parameters/")
			got = append(got, fmt.Sprint(doc.Components.Parameters[name]["name"]))
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: documented parameters %v, served %v", e.path, got, want)
		}
	}
	for p := range doc.Paths {
		if !slices.Contains(served, p) {
			t.Errorf("openapi.json documents %s, which is not served", p)
		}
	}
}

// openAPIRuleEnums are the places openapi.json lists the rules.
var openAPIRuleEnums = [][]string{{"components", "parameters", "rule", "schema", "enum"},
	{"components", "schemas", "Finding", "properties", "rule", "enum"}}

// TestOpenAPIRuleEnums: openapi.json's rule enumerations are the catalogue's
// rules (go test ./httpapi -run TestOpenAPIRuleEnums -update rewrites them).
func TestOpenAPIRuleEnums(t *testing.T) {
	want := openAPI
	for _, path := range openAPIRuleEnums {
		var err error
		if want, err = testdoc.ReplaceArray(want, path, validator.RuleIDs()); err != nil {
			t.Fatalf("openapi.json: %v", err)
		}
	}
	switch {
	case *update:
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	case !bytes.Equal(want, openAPI):
		t.Errorf("openapi.json's rule enumerations are not the catalogue's %v "+
			"(go test ./httpapi -run TestOpenAPIRuleEnums -update)", validator.RuleIDs())
	}
}

// TestResponsesMatchOpenAPI validates answers of every endpoint (pages,
// filters, errors) against the document's schemas, and checks that every
// documented field was served at least once.
func TestResponsesMatchOpenAPI(t *testing.T) {
	doc := loadOpenAPI(t)
	srv := httptest.NewServer(New("127.0.0.1:0", testSources(true), prometheus.NewRegistry(),
		zerolog.Nop()).Handler())
	defer srv.Close()
	v := &schemaCheck{doc: doc, seen: map[string]bool{}}
	for _, path := range []string{"/api/v1/findings", "/api/v1/findings?limit=1", "/api/v1/findings?rule=bogus",
		"/api/v1/transitions", "/api/v1/transitions?kind=fired&limit=1", "/api/v1/routes", "/api/v1/routes?limit=1",
		"/api/v1/routes?node=node1", "/api/v1/routes?prefix=x", "/api/v1/routes?view=pre-policy", "/api/v1/routes?view=x", "/api/v1/peers", "/api/v1/nodes",
		"/api/v1/nodes?continue=eyJvIjo5LCJrIjoibm9kZTkifQ", "/api/v1/convergence",
		"/api/v1/convergence?state=pending&type=vip", "/api/v1/convergence?direction=sideways"} {
		code, body := get(t, srv.URL+path)
		route := strings.SplitN(path, "?", 2)[0]
		resp, ok := doc.Paths[route].Get.Responses[fmt.Sprint(code)]
		if !ok {
			t.Errorf("%s answered %d, which openapi.json does not document", path, code)
			continue
		}
		var got any
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		for _, err := range v.check(resp.Content["application/json"].Schema, got, route) {
			t.Errorf("%s (%d): %s", path, code, err)
		}
	}
	// Warming up: the state says whom it waits for.
	warming := testSources(true)
	healthy := warming.State
	warming.State = func() monitor.State {
		st := healthy()
		st.WarmingUp, st.WarmupEnds = true, st.At.Add(time.Minute)
		st.Awaiting = []monitor.AwaitedPeer{{Node: "node2", Addresses: []netip.Addr{netip.MustParseAddr("10.0.0.12")}}}
		return st
	}
	wsrv := httptest.NewServer(New("127.0.0.1:0", warming, prometheus.NewRegistry(), zerolog.Nop()).Handler())
	defer wsrv.Close()
	for _, route := range []string{"/api/v1/findings", "/api/v1/nodes"} {
		_, body := get(t, wsrv.URL+route)
		var got any
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("%s: %v", route, err)
		}
		for _, err := range v.check(doc.Paths[route].Get.Responses["200"].Content["application/json"].Schema, got, route) {
			t.Errorf("%s (warming up): %s", route, err)
		}
	}
	for name, s := range doc.Components.Schemas {
		for prop := range s["properties"].(map[string]any) {
			if !v.seen[name+"."+prop] {
				t.Errorf("%s.%s is documented but no answer had it", name, prop)
			}
		}
	}
}

// schemaCheck validates JSON values against the subset of OpenAPI schemas
// openapi.json uses: $ref, object (required, properties, additionalProperties),
// array, string (enum, date-time), integer, number, boolean.
type schemaCheck struct {
	doc  *openAPIDoc
	seen map[string]bool // "Schema.property" present in some answer
}

func (c *schemaCheck) check(schema map[string]any, v any, at string) []string {
	name := ""
	if ref, ok := schema["$ref"].(string); ok {
		name = strings.TrimPrefix(ref, "#/components/schemas/")
		schema = c.doc.Components.Schemas[name]
		if schema == nil {
			return []string{at + ": unknown schema " + ref}
		}
	}
	var errs []string
	fail := func(f string, a ...any) []string { return append(errs, at+": "+fmt.Sprintf(f, a...)) }
	switch schema["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return fail("%v is not an object", v)
		}
		props, _ := schema["properties"].(map[string]any)
		for _, r := range asStrings(schema["required"]) {
			if _, ok := m[r]; !ok {
				errs = fail("required %s missing", r)
			}
		}
		for k, x := range m {
			switch p, ok := props[k].(map[string]any); {
			case ok:
				c.seen[name+"."+k] = true
				errs = append(errs, c.check(p, x, at+"."+k)...)
			case schema["additionalProperties"] == false:
				errs = fail("%s is not in the document", k)
			default:
				if ap, ok := schema["additionalProperties"].(map[string]any); ok {
					errs = append(errs, c.check(ap, x, at+"."+k)...)
				}
			}
		}
	case "array":
		xs, ok := v.([]any)
		if !ok {
			return fail("%v is not an array (an empty list is [])", v)
		}
		for i, x := range xs {
			errs = append(errs, c.check(schema["items"].(map[string]any), x, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case "string":
		s, ok := v.(string)
		if !ok {
			return fail("%v is not a string", v)
		}
		if enum := asStrings(schema["enum"]); enum != nil && !slices.Contains(enum, s) {
			errs = fail("%q is not one of %v", s, enum)
		}
		if _, err := time.Parse(time.RFC3339, s); schema["format"] == "date-time" && err != nil {
			errs = fail("%q is not a date-time", s)
		}
	case "integer", "number":
		n, ok := v.(float64)
		if !ok || schema["type"] == "integer" && n != float64(int64(n)) {
			return fail("%v is not an %s", v, schema["type"])
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fail("%v is not a boolean", v)
		}
	}
	return errs
}

func asStrings(v any) []string {
	xs, _ := v.([]any)
	var out []string
	for _, x := range xs {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// TestPathsListEveryRoute: Paths (run --help's list) names every endpoint.
func TestPathsListEveryRoute(t *testing.T) {
	listed := map[string]bool{}
	for _, p := range Paths() {
		listed[p.Path] = true
	}
	s := New("127.0.0.1:0", testSources(true), prometheus.NewRegistry(), zerolog.Nop())
	want := []string{"/", "/metrics", "/healthz", "/readyz", "/api/v1/roas", "/api/v1/openapi.json"}
	for _, e := range s.endpoints() {
		want = append(want, e.path)
	}
	for _, p := range want {
		if !listed[p] {
			t.Errorf("%s is served but Paths does not list it", p)
		}
	}
	if len(listed) != len(want) {
		t.Errorf("Paths lists %d paths, the server answers %d", len(listed), len(want))
	}
}
