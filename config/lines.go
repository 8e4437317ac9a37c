package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/yamlpos"
)

// mapKeys lists the keys allowed in maps whose keys are names, by path.
var mapKeys = map[string]func() []string{"rules": ruleIDs}

// checkNode walks the YAML against the Config type, one node at a time, and
// reports every key the type does not have (with the keys that were expected)
// and every value that does not fit its key's type, each at its own node: the
// key and line come from the node, flow style ({asn: x, routerId: …}) included.
func checkNode(n *yaml.Node, t reflect.Type, path string, report func(path string, line int, msg string)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			checkNode(c, t, path, report)
		}
	case yaml.MappingNode:
		checkDuplicates(n, path, report)
		switch t.Kind() {
		case reflect.Map:
			checkMap(n, t, path, report)
		case reflect.Struct:
			if t != reflect.TypeOf(time.Duration(0)) {
				checkStruct(n, t, path, report)
				return
			}
			fallthrough
		default:
			report(path, n.Line, mismatch(n, path, t))
		}
	case yaml.SequenceNode:
		if t.Kind() != reflect.Slice {
			report(path, n.Line, mismatch(n, path, t))
			return
		}
		for i, c := range n.Content {
			checkNode(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), report)
		}
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return // the key is left at its default
		}
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			report(path, n.Line, mismatch(n, path, t))
		}
	}
}

func checkMap(n *yaml.Node, t reflect.Type, path string, report func(path string, line int, msg string)) {
	if allowed, ok := mapKeys[path]; ok {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !contains(allowed(), n.Content[i].Value) {
				report(yamlpos.Join(path, n.Content[i].Value), n.Content[i].Line,
					fmt.Sprintf("unknown rule (expected one of: %s)", strings.Join(allowed(), ", ")))
			}
		}
	}
	for i := 1; i < len(n.Content); i += 2 {
		checkNode(n.Content[i], t.Elem(), yamlpos.Join(path, n.Content[i-1].Value), report)
	}
}

func checkStruct(n *yaml.Node, t reflect.Type, path string, report func(path string, line int, msg string)) {
	fields := yamlFields(t, map[string]reflect.Type{})
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		ft, ok := fields[key]
		if !ok {
			report(yamlpos.Join(path, key), n.Content[i].Line, fmt.Sprintf("unknown key (expected one of: %s)",
				strings.Join(sortedKeys(fields), ", ")))
			continue
		}
		checkNode(n.Content[i+1], ft, yamlpos.Join(path, key), report)
	}
}

// checkDuplicates reports a key given twice in one mapping (the second
// would silently win).
func checkDuplicates(n *yaml.Node, path string, report func(path string, line int, msg string)) {
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if line, dup := first[k.Value]; dup {
			report(yamlpos.Join(path, k.Value), k.Line, fmt.Sprintf("mapping key %q already defined at line %d", k.Value, line))
			continue
		}
		first[k.Value] = k.Line
	}
}

// mismatch says what a node holds and what its key expected.
func mismatch(n *yaml.Node, path string, t reflect.Type) string {
	return fmt.Sprintf("found %s, expected %s", found(n), expected(path, t.String()))
}

var yamlTypeNames = map[string]string{"!!str": "the string", "!!int": "the number", "!!bool": "the boolean",
	"!!float": "the number", "!!timestamp": "the date"}

func found(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	v := n.Value
	if len(v) > 60 {
		v = v[:57] + "..."
	}
	if name, ok := yamlTypeNames[n.ShortTag()]; ok {
		return fmt.Sprintf("%s %q", name, v)
	}
	return fmt.Sprintf("%q", v)
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
