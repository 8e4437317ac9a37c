package arch

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// clockCalls returns every use of the clock in p's source files (not its
// tests): a function of package time named in r.Clock, called or not.
func (r rules) clockCalls(g graph, p *pkg) []string {
	var problems []string
	fset := token.NewFileSet()
	for _, name := range slices.Concat(p.GoFiles, p.CgoFiles, p.IgnoredGoFiles) {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file := filepath.Join(p.Dir, name)
		src, err := g.read(file)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", r.short(p.ImportPath), err))
			continue
		}
		display := r.short(p.ImportPath) + "/" + name
		problems = append(problems, clockUses(fset, display, src, r.Clock)...)
	}
	return problems
}

// clockUses returns where the source of one file uses one of package time's
// functions named in clock.
func clockUses(fset *token.FileSet, name string, src []byte, clock []string) []string {
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return []string{fmt.Sprintf("%s: parsing: %v", name, err)}
	}
	local := ""
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path != "time" {
			continue
		}
		local = "time"
		if imp.Name != nil {
			local = imp.Name.Name
		}
	}
	switch local {
	case "", "_":
		return nil
	case ".":
		return []string{fmt.Sprintf("%s: imports time with a dot: import it by name, so that its clock calls show",
			fset.Position(f.Package))}
	}
	var uses []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		// A package name resolves to no object; a variable named like it does.
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == local && id.Obj == nil && slices.Contains(clock, sel.Sel.Name) {
			uses = append(uses, fmt.Sprintf("%s: time.%s: the pure layer reads the clock or starts a timer "+
				"(take the time as an argument; timers belong to the monitoring loop)", fset.Position(sel.Pos()), sel.Sel.Name))
		}
		return true
	})
	return uses
}
