package cilium

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/yamlpos"
)

// TypeProblem is a field of an object whose value does not fit its type
// (localASN: 99999999999): where it is, whose it is, and what was found and
// expected, in routewarden's words rather than yaml.v3's.
type TypeProblem struct {
	Pos     Pos
	Object  string // "Kind name"
	Field   string // e.g. spec.bgpInstances[0].localASN
	Message string // found …, expected …
}

func (p TypeProblem) String() string {
	return fmt.Sprintf("%s: %s: %s: %s", p.Pos, p.Object, p.Field, p.Message)
}

// typeErrors are the fields of one object that did not decode; the object
// was decoded without them.
type typeErrors []TypeProblem

func (e typeErrors) Error() string { return e[0].String() }

// fieldTypeProblems types the node against the Go type of the object it was
// decoded into, naming each field whose value did not fit (yaml.v3 says only
// the line and the Go type).
func fieldTypeProblems(n *yaml.Node, t reflect.Type, file string) error {
	var out typeErrors
	yamlpos.Walk(n, t, "", func(is yamlpos.Issue) {
		if is.Kind == yamlpos.Mismatch {
			out = append(out, TypeProblem{Pos: Pos{File: file, Line: is.Line}, Field: is.Path,
				Message: fmt.Sprintf("found %s, expected %s", is.Found, yamlpos.Describe(is.Type))})
		}
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

// keepTypeErrors records an object's type problems (naming the object) and
// tells whether err was only those.
func (o *Objects) keepTypeErrors(err error, what string) bool {
	var te typeErrors
	if !errors.As(err, &te) {
		return false
	}
	for _, p := range te {
		p.Object = what
		o.TypeProblems = append(o.TypeProblems, p)
	}
	return true
}

// ReadLintFiles is ReadFiles for validate-config: a field whose value does not
// fit its type is kept in TypeProblems (the object is read without it), so
// every other check of every object still runs.
func ReadLintFiles(paths []string) (*Objects, error) {
	return readFiles(paths, &Objects{lenient: true})
}

// typeError is every type problem at once, unless they are kept (lenient).
func (o *Objects) typeError() error {
	if o.lenient || len(o.TypeProblems) == 0 {
		return nil
	}
	lines := make([]string, len(o.TypeProblems))
	for i, p := range o.TypeProblems {
		lines[i] = p.String()
	}
	return errors.New(strings.Join(lines, "\n"))
}
