package cilium

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"
)

// objectNode builds the yaml.Node that parsing json.Marshal(obj) gives,
// straight from an unstructured object's values, without the text: the
// inventory's first translation of a large cluster spent most of its time
// encoding every object to JSON and scanning it again (BENCHMARKS.md,
// "Cluster scale"). As in that one-line text, every node is on line 1;
// strings (and mapping keys) are double-quoted, other scalars plain and
// tagged as YAML resolves them, collections in flow style, nil ones null. A value of any
// other type goes through the text, as before.
func objectNode(v any) (*yaml.Node, error) {
	switch v := v.(type) {
	case map[string]any:
		if v == nil { // json.Marshal's null: a nil selector selects nothing, {} everything
			return scalarNode("!!null", "null"), nil
		}
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle, Line: 1, Column: 1,
			Content: make([]*yaml.Node, 0, 2*len(v))}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // json.Marshal's order
		for _, k := range keys {
			val, err := objectNode(v[k])
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, stringNode(k), val)
		}
		return n, nil
	case []any:
		if v == nil { // null, as json.Marshal writes it
			return scalarNode("!!null", "null"), nil
		}
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Line: 1, Column: 1,
			Content: make([]*yaml.Node, 0, len(v))}
		for _, e := range v {
			en, err := objectNode(e)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, en)
		}
		return n, nil
	case string:
		return stringNode(v), nil
	case bool:
		return scalarNode("!!bool", strconv.FormatBool(v)), nil
	case int64:
		return scalarNode("!!int", strconv.FormatInt(v, 10)), nil
	case nil:
		return scalarNode("!!null", "null"), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding a %T: %w", v, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil, fmt.Errorf("reading %s: not valid JSON: %v", data, err)
	}
	return doc.Content[0], nil
}

func stringNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: s, Line: 1, Column: 1}
}

func scalarNode(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Line: 1, Column: 1}
}

// DecodeUnstructured adds the object obj, an unstructured object as the API
// server's JSON decodes into maps (integers as int64), read as the named
// file: what Decode of json.Marshal(obj) would add, without the text
// (objectNode).
func (o *Objects) DecodeUnstructured(file string, obj map[string]any) error {
	n, err := objectNode(obj)
	if err != nil {
		return err
	}
	return o.decodeObject(file, n)
}

// Add appends every list of f to o's (each slice field, so a kind added to
// Objects is merged too) and ORs ServicesRead.
func (o *Objects) Add(f *Objects) {
	ov, fv := reflect.ValueOf(o).Elem(), reflect.ValueOf(f).Elem()
	for k := 0; k < ov.NumField(); k++ {
		if ov.Field(k).Kind() == reflect.Slice && fv.Field(k).Len() > 0 {
			ov.Field(k).Set(reflect.AppendSlice(ov.Field(k), fv.Field(k)))
		}
	}
	o.ServicesRead = o.ServicesRead || f.ServicesRead
	for kind, n := range f.Ignored {
		if o.Ignored == nil {
			o.Ignored = map[string]int{}
		}
		o.Ignored[kind] += n
	}
}
