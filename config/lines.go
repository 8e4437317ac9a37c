package config

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/yamlpos"
	"github.com/routewarden/routewarden/validator"
)

// checkNode walks the YAML against the Config type (yamlpos.Walk) and reports
// every key the type does not have (with the keys that were expected), every
// key given twice and every value that does not fit its key's type, each at
// its own node: flow style ({asn: x, routerId: …}) included.
func checkNode(n *yaml.Node, report func(path string, line int, msg string)) {
	yamlpos.Walk(n, reflect.TypeOf(Config{}), "", func(is yamlpos.Issue) {
		switch is.Kind {
		case yamlpos.UnknownKey:
			report(is.Path, is.Line, fmt.Sprintf("unknown key (expected one of: %s)", strings.Join(is.Keys, ", ")))
		case yamlpos.DuplicateKey:
			_, key := cutLast(is.Path)
			report(is.Path, is.Line, fmt.Sprintf("mapping key %q already defined at line %d", key, is.FirstLine))
		default:
			report(is.Path, is.Line, fmt.Sprintf("found %s, expected %s", is.Found, expected(is.Path, is.Type)))
		}
	})
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		checkRuleNames(n.Content[0], report)
	}
}

// checkRuleNames reports the keys of rules: that name no rule (viper would
// drop an empty one, rules.x: {}, before Validate sees it).
func checkRuleNames(root *yaml.Node, report func(path string, line int, msg string)) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "rules" || root.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		rules := root.Content[i+1].Content
		for j := 0; j+1 < len(rules); j += 2 {
			if !contains(validator.RuleIDs(), rules[j].Value) {
				report("rules."+rules[j].Value, rules[j].Line,
					fmt.Sprintf("unknown rule (expected one of: %s)", strings.Join(validator.RuleIDs(), ", ")))
			}
		}
	}
}

func cutLast(path string) (string, string) {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i], path[i+1:]
	}
	return "", path
}

// nodeValue is what yaml.v3 decodes a node into as any, except that a key
// given twice keeps its last value instead of failing the whole file.
func nodeValue(n *yaml.Node) any {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return nodeValue(n.Content[0])
		}
	case yaml.AliasNode:
		if n.Alias != nil {
			return nodeValue(n.Alias)
		}
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].ShortTag() == "!!merge" { // <<: *defaults, the keys given here win
				merged, _ := nodeValue(n.Content[i+1]).(map[string]any)
				for k, v := range merged {
					if _, set := m[k]; !set {
						m[k] = v
					}
				}
				continue
			}
			m[n.Content[i].Value] = nodeValue(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			l[i] = nodeValue(c)
		}
		return l
	case yaml.ScalarNode:
		var v any
		if n.Decode(&v) == nil {
			return v
		}
		return n.Value
	}
	return nil
}
