package arch

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShortOnlySkips holds the test tiers (hack/testtier) to their promise:
// the quick tier (-short) runs a test whole or skips it, and the rest runs
// exactly the tests it skipped. A test that shortened itself under -short
// without skipping would never run in full, so every function that asks
// testing.Short() must also skip (t.Skip, Skipf or SkipNow): split the long
// part into a test of its own that skips under -short.
func TestShortOnlySkips(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var problems []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "interop", ".git", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(src), "testing.Short()") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		problems = append(problems, shortWithoutSkip(fset, rel, src)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// shortWithoutSkip returns the functions of one file that ask
// testing.Short() and never skip.
func shortWithoutSkip(fset *token.FileSet, name string, src []byte) []string {
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return []string{fmt.Sprintf("%s: parsing: %v", name, err)}
	}
	var problems []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		var short token.Pos
		skips := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch x, _ := sel.X.(*ast.Ident); {
			case x != nil && x.Name == "testing" && sel.Sel.Name == "Short" && !short.IsValid():
				short = call.Pos()
			case sel.Sel.Name == "Skip" || sel.Sel.Name == "Skipf" || sel.Sel.Name == "SkipNow":
				skips = true
			}
			return true
		})
		if short.IsValid() && !skips {
			problems = append(problems, fmt.Sprintf("%s: %s asks testing.Short() and never skips: under -short a "+
				"test must skip what it leaves out (a test of its own), or the full tier never runs it",
				fset.Position(short), fn.Name.Name))
		}
	}
	return problems
}
