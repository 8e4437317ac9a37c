// Package yamlpos maps key paths in a YAML (or JSON) document, such as
// "spec.bgpInstances[0].peers[1].peerASN", to the lines they are on, so errors
// can say where a value is.
package yamlpos

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Lines maps key paths to 1-based line numbers.
type Lines map[string]int

// Index records the line of every key and list item below n.
func Index(n *yaml.Node) Lines {
	l := Lines{}
	l.add(n, "")
	return l
}

func (l Lines) add(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			l.add(c, path)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := Join(path, n.Content[i].Value)
			l[k] = n.Content[i].Line
			l.add(n.Content[i+1], k)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			k := fmt.Sprintf("%s[%d]", path, i)
			l[k] = c.Line
			l.add(c, k)
		}
	}
}

// Join appends a key to a path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Line finds the line of key, or of its closest ancestor present; 0 if none.
func (l Lines) Line(key string) int {
	for k := key; k != ""; {
		if n, ok := l[k]; ok {
			return n
		}
		if i := strings.LastIndexAny(k, ".["); i >= 0 {
			k = k[:i]
		} else {
			k = ""
		}
	}
	return 0
}
