// Package testdoc rewrites the generated parts of hand-written documents in
// place, for tests that keep them in step with their source (and rewrite them
// with -update): an array inside a JSON document, keeping the document's own
// layout, and the text between two markers of a Markdown file.
package testdoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ReplaceArray returns doc with the array at path (object keys from the
// root) holding values instead, laid out as the array it replaces was: one
// value a line at that array's indentation, or all on one line.
func ReplaceArray(doc []byte, path []string, values []string) ([]byte, error) {
	start, end, err := findArray(doc, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(path, "/"), err)
	}
	quoted := make([]string, len(values))
	for i, v := range values {
		b, _ := json.Marshal(v)
		quoted[i] = string(b)
	}
	old := doc[start:end]
	var arr string
	if i := bytes.IndexByte(old, '\n'); i < 0 {
		arr = "[" + strings.Join(quoted, ", ") + "]"
	} else {
		rest := old[i+1:]
		inner := string(rest[:len(rest)-len(bytes.TrimLeft(rest, " \t"))])
		lineStart := bytes.LastIndexByte(doc[:start], '\n') + 1
		line := doc[lineStart:start]
		outer := string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
		arr = "[\n" + inner + strings.Join(quoted, ",\n"+inner) + "\n" + outer + "]"
	}
	return slices.Concat(doc[:start], []byte(arr), doc[end:]), nil
}

// findArray returns the byte range of the array at path.
func findArray(doc []byte, path []string) (start, end int, err error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	start, end = -1, -1
	var walk func(at []string) error
	walk = func(at []string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		here := slices.Equal(at, path)
		if here && d == '[' {
			start = int(dec.InputOffset()) - 1
		}
		for dec.More() {
			var next []string
			if d == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				next = append(slices.Clip(at), key.(string))
			} else {
				next = append(slices.Clip(at), "[]")
			}
			if err := walk(next); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
		if here && d == '[' {
			end = int(dec.InputOffset())
		}
		return nil
	}
	if err := walk(nil); err != nil {
		return 0, 0, err
	}
	if start < 0 {
		return 0, 0, errors.New("no array there")
	}
	return start, end, nil
}

// ReplaceBetween returns doc with the text between the lines
// "<!-- name:start -->" and "<!-- name:end -->" replaced by content (which
// ends with a newline).
func ReplaceBetween(doc []byte, name, content string) ([]byte, error) {
	open, closing := "<!-- "+name+":start -->\n", "<!-- "+name+":end -->"
	i := bytes.Index(doc, []byte(open))
	j := bytes.Index(doc, []byte(closing))
	if i < 0 || j < i {
		return nil, fmt.Errorf("no %q … %q block", strings.TrimSpace(open), closing)
	}
	i += len(open)
	return slices.Concat(doc[:i], []byte(content), doc[j:]), nil
}
