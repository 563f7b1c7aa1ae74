package sqlite

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide/tokenize"
)

// TestMissingFolder: a store, a restore or a backup in a folder that does
// not exist (or is a file) says so, naming the folder, not the store or its
// lock file; a store there is not made.
func TestMissingFolder(t *testing.T) {
	s, path, bak := backedUpStore(t)
	root := filepath.Dir(path)
	missing := filepath.Join(root, "missing", "dir")
	file := filepath.Join(root, "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		run  func(p string) error
		want string // %s: the folder
	}{
		{"open", func(p string) error { _, err := Open(ctx, p, Options{Embedder: hashEmbedder(t, 64)}); return err },
			"open %[2]s: the folder %[1]s does not exist (create it first)"},
		{"open read-only", func(p string) error {
			_, err := Open(ctx, p, Options{Embedder: hashEmbedder(t, 64), ReadOnly: true})
			return err
		}, "open %[2]s: the folder %[1]s does not exist"},
		{"open without an embedder", func(p string) error { _, err := Open(ctx, p, Options{ReadOnly: true}); return err },
			"%[2]s: no such store: the folder %[1]s does not exist"},
		{"restore", func(p string) error { _, err := Restore(ctx, bak, p); return err },
			"restore " + bak + " to %[2]s: the folder %[1]s does not exist (create it first)"},
		{"reembed", func(p string) error { _, err := Reembed(ctx, p, hashEmbedder(t, 32), 0, nil); return err },
			"reembed: %[2]s: no such store: the folder %[1]s does not exist"},
		{"reanalyze", func(p string) error { _, err := Reanalyze(ctx, p, tokenize.CJK(), nil); return err },
			"reanalyze: %[2]s: no such store: the folder %[1]s does not exist"},
		{"backup", func(p string) error { return s.Backup(ctx, p) },
			"backup to %[2]s: the folder %[1]s does not exist (create it first)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(missing, "x.db")
			err := tt.run(p)
			if want := fmtWant(tt.want, missing, p); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%v, want %q", err, want)
			}
			if err != nil && strings.Contains(err.Error(), ".lock") {
				t.Errorf("%v blames the lock file", err)
			}
			// A file where the folder should be is no folder.
			p = filepath.Join(file, "x.db")
			err = tt.run(p)
			if err == nil || !strings.Contains(err.Error(), file+" is not a folder") && !strings.Contains(err.Error(), "the folder "+file+" does not exist") {
				t.Errorf("in a file: %v, want it named as no folder", err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("something made the missing folder: %v", err)
	}
}

// fmtWant fills a want of TestMissingFolder: %[1]s the folder, %[2]s the
// store.
func fmtWant(want, folder, store string) string {
	return strings.NewReplacer("%[1]s", folder, "%[2]s", store).Replace(want)
}
