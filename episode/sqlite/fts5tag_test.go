package sqlite

import (
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildWithoutFTS5TagFails checks that a build of this package without
// the sqlite_fts5 tag includes fts5tag.go and fails to type-check with an
// error that names the tag (the whole build would otherwise succeed and fail
// at run time with "no such function: fts5").
func TestBuildWithoutFTS5TagFails(t *testing.T) {
	ctxt := build.Default
	ctxt.BuildTags = nil
	pkg, err := ctxt.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	var guard string
	for _, f := range pkg.GoFiles {
		if f == "fts5tag.go" {
			guard = f
		}
	}
	if guard == "" {
		t.Fatalf("a build without -tags sqlite_fts5 has no guard file: %v", pkg.GoFiles)
	}
	with := build.Default
	with.BuildTags = []string{"sqlite_fts5"}
	if ok, err := with.MatchFile(".", guard); err != nil || ok {
		t.Fatalf("the guard is built with -tags sqlite_fts5 too (%v, %v)", ok, err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(".", guard), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	conf := types.Config{Importer: importer.Default(), Error: func(err error) { msg += err.Error() + "\n" }}
	conf.Check("episode", fset, []*ast.File{f}, nil)
	if !strings.Contains(msg, "-tags sqlite_fts5") {
		t.Fatalf("the guard's compile error does not name -tags sqlite_fts5: %q", msg)
	}
}
