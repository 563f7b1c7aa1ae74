package omoidehttp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// TestServeAuthConstantTime checks, in the source, that Handler.authorized
// compares the token with crypto/subtle.ConstantTimeCompare over SHA-256
// digests and never with == or a bytes/strings comparison whose time depends
// on where a guess differs (a timing test would be flaky; this fails the
// moment the comparison is rewritten).
func TestServeAuthConstantTime(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "handler.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Name.Name == "authorized" {
			fn = d
		}
	}
	if fn == nil {
		t.Fatal("handler.go has no func authorized")
	}
	calls := map[string]bool{}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok {
					calls[pkg.Name+"."+sel.Sel.Name] = true
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				if lit, ok := n.Y.(*ast.BasicLit); !ok || lit.Value != "1" { // ConstantTimeCompare(...) == 1
					t.Errorf("authorized compares with %s at %v", n.Op, fset.Position(n.Pos()))
				}
			}
		}
		return true
	})
	if !calls["subtle.ConstantTimeCompare"] || !calls["sha256.Sum256"] {
		t.Errorf("authorized calls %v; want subtle.ConstantTimeCompare over sha256.Sum256 digests", calls)
	}
	for _, bad := range []string{"bytes.Equal", "strings.Compare", "bytes.Compare"} {
		if calls[bad] {
			t.Errorf("authorized calls %s", bad)
		}
	}
}
