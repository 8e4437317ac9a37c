package yamlpos

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// IssueKind is what a walk found wrong with a node.
type IssueKind int

// Issue kinds.
const (
	// Mismatch: the value does not fit its key's type (Found, Type).
	Mismatch IssueKind = iota
	// UnknownKey: the type has no such key (Keys lists the ones it has).
	UnknownKey
	// DuplicateKey: the mapping gives the key twice (FirstLine is the first).
	DuplicateKey
)

// Issue is one problem of one node, with the node's own key path and line.
type Issue struct {
	Kind      IssueKind
	Path      string
	Line      int
	Found     string       // what the node holds: `the string "x"`, `a list`
	Type      reflect.Type // the type the key expects (Mismatch)
	Keys      []string     // the keys the type has, sorted (UnknownKey)
	FirstLine int          // DuplicateKey
}

// Walk checks the YAML below n against the Go type t (as yaml.v3 decodes it),
// one node at a time, and reports every issue where the node is: flow style
// ({asn: x, routerId: …}) included, and without stopping at the first.
// Values of types with their own UnmarshalYAML are decoded whole.
func Walk(n *yaml.Node, t reflect.Type, path string, report func(Issue)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			Walk(c, t, path, report)
		}
		return
	}
	custom := reflect.PointerTo(t).Implements(reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem())
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		// the key keeps its zero value
	case custom || n.Kind == yaml.ScalarNode:
		var te *yaml.TypeError
		if err := n.Decode(reflect.New(t).Interface()); err != nil && (!custom || asTypeError(err, &te)) {
			report(Issue{Kind: Mismatch, Path: path, Line: n.Line, Found: Found(n), Type: t})
		}
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for i, c := range n.Content {
			Walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), report)
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		duplicates(n, path, report)
		for i := 1; i < len(n.Content); i += 2 {
			Walk(n.Content[i], t.Elem(), Join(path, n.Content[i-1].Value), report)
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct && t != reflect.TypeOf(time.Duration(0)):
		duplicates(n, path, report)
		fields := Fields(t, map[string]reflect.Type{})
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if n.Content[i].ShortTag() == "!!merge" { // <<: *defaults: the anchored keys are this mapping's
				merged := n.Content[i+1]
				if merged.Kind == yaml.AliasNode && merged.Alias != nil {
					merged = merged.Alias
				}
				if merged.Kind == yaml.SequenceNode {
					for _, m := range merged.Content {
						Walk(m, t, path, report)
					}
				} else {
					Walk(merged, t, path, report)
				}
				continue
			}
			if ft, ok := fields[key]; ok {
				Walk(n.Content[i+1], ft, Join(path, key), report)
			} else {
				report(Issue{Kind: UnknownKey, Path: Join(path, key), Line: n.Content[i].Line, Keys: sortedKeys(fields)})
			}
		}
	case t.Kind() != reflect.Interface:
		report(Issue{Kind: Mismatch, Path: path, Line: n.Line, Found: Found(n), Type: t})
	}
}

// asTypeError tells a value that does not fit (yaml.TypeError) from a custom
// unmarshaler's own error, which the caller reports in its words.
func asTypeError(err error, te **yaml.TypeError) bool {
	t, ok := err.(*yaml.TypeError)
	*te = t
	return ok
}

func duplicates(n *yaml.Node, path string, report func(Issue)) {
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if line, dup := first[k.Value]; dup {
			report(Issue{Kind: DuplicateKey, Path: Join(path, k.Value), Line: k.Line, FirstLine: line})
			continue
		}
		first[k.Value] = k.Line
	}
}

var typeNames = map[string]string{"!!str": "the string", "!!int": "the number", "!!bool": "the boolean",
	"!!float": "the number", "!!timestamp": "the date"}

// Found says what a node holds: `the string "x"`, `the number "99999999999"`, `a list`.
func Found(n *yaml.Node) string {
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
	if name, ok := typeNames[n.ShortTag()]; ok {
		return fmt.Sprintf("%s %q", name, v)
	}
	return fmt.Sprintf("%q", v)
}

// Fields maps a struct's YAML keys to their types, following inline fields,
// named as yaml.v3 names them.
func Fields(t reflect.Type, into map[string]reflect.Type) map[string]reflect.Type {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := strings.Split(f.Tag.Get("yaml"), ",")
		switch {
		case tag[0] == "-":
		case len(tag) > 1 && tag[1] == "inline":
			Fields(f.Type, into)
		case tag[0] != "":
			into[tag[0]] = f.Type
		default:
			into[strings.ToLower(f.Name)] = f.Type
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

// Describe says how a value of type t is written.
func Describe(t reflect.Type) string {
	switch {
	case t == reflect.TypeOf(time.Duration(0)):
		return "a duration such as 90s"
	case t.Kind() == reflect.Uint32:
		return "a whole number 0–4294967295"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "a whole number"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "a number such as 0.25"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Slice:
		return "a list"
	case t.Kind() == reflect.Pointer:
		return Describe(t.Elem())
	}
	return "a mapping"
}
