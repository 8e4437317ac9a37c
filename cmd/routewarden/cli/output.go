package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
	"gopkg.in/yaml.v3"
)

// defaultWidth is the table width when stdout is not a terminal and COLUMNS is unset.
const defaultWidth = 120

// writeStructured writes v as indented JSON or as YAML with the same keys
// (the JSON field names) in the same order.
func writeStructured(w io.Writer, format string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if format == "json" {
		_, err = w.Write(append(data, '\n'))
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("converting to YAML: %w", err)
	}
	blockStyle(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// blockStyle turns JSON's flow style and quotes into plain block YAML.
func blockStyle(n *yaml.Node) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!str" && n.Value != "" {
		n.Style = 0
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// terminalWidth is the width tables are sized to: $COLUMNS, else the
// terminal's, else defaultWidth.
func terminalWidth(stdout io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := stdout.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return defaultWidth
}
