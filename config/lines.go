package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/yamlpos"
	"github.com/routewarden/routewarden/validator"
)

// mapKeys lists the keys allowed in maps whose keys are names, by path.
var mapKeys = map[string]func() []string{"rules": validator.RuleIDs}

// unknownKeys walks the YAML against the Config type and reports every key the
// type does not have, with the keys that were expected.
func unknownKeys(n *yaml.Node, t reflect.Type, path string, report func(path string, line int, msg string)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			unknownKeys(c, t, path, report)
		}
	case yaml.MappingNode:
		if t.Kind() == reflect.Map {
			if allowed, ok := mapKeys[path]; ok {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if !contains(allowed(), n.Content[i].Value) {
						report(yamlpos.Join(path, n.Content[i].Value), n.Content[i].Line,
							fmt.Sprintf("unknown rule (expected one of: %s)", strings.Join(allowed(), ", ")))
					}
				}
			}
			for i := 1; i < len(n.Content); i += 2 {
				unknownKeys(n.Content[i], t.Elem(), yamlpos.Join(path, n.Content[i-1].Value), report)
			}
			return
		}
		if t.Kind() != reflect.Struct {
			return
		}
		fields := yamlFields(t, map[string]reflect.Type{})
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			ft, ok := fields[key]
			if !ok {
				report(yamlpos.Join(path, key), n.Content[i].Line, fmt.Sprintf("unknown key (expected one of: %s)",
					strings.Join(sortedKeys(fields), ", ")))
				continue
			}
			unknownKeys(n.Content[i+1], ft, yamlpos.Join(path, key), report)
		}
	case yaml.SequenceNode:
		if t.Kind() == reflect.Slice {
			for i, c := range n.Content {
				unknownKeys(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), report)
			}
		}
	}
}

// yamlFields maps a struct's YAML keys to their types, following inline fields.
func yamlFields(t reflect.Type, into map[string]reflect.Type) map[string]reflect.Type {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")
		switch {
		case len(tag) > 1 && tag[1] == "inline":
			yamlFields(f.Type, into)
		case tag[0] != "":
			into[tag[0]] = f.Type
		}
	}
	return into
}

func sortedKeys(m map[string]reflect.Type) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
