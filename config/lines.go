package config

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/yamlpos"
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
			if !contains(ruleIDs(), rules[j].Value) {
				report("rules."+rules[j].Value, rules[j].Line,
					fmt.Sprintf("unknown rule (expected one of: %s)", strings.Join(ruleIDs(), ", ")))
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
