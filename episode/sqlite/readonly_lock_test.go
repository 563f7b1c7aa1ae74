package sqlite

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/omoide/omoide/episode"
)

// TestLockReadOnly: a read-only open holds the store as a writable one
// does: a restore, a re-embedding and a re-analysis are refused with
// ErrHeld naming this process, and the store goes on serving what it held;
// closed, each goes through. While one of them holds the store, a read-only
// open is refused the same way.
func TestLockReadOnly(t *testing.T) {
	s, path, bak := backedUpStore(t)
	if _, err := s.Add(ctx, []episode.Episode{ep("bob", "猫を見た", "かわいい", day)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro := openStore(t, path, Options{ReadOnly: true})
	for _, r := range replacers(t, path, bak) {
		err := r.run()
		if !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "held by this process") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s while a read-only store is open: %v, want ErrHeld naming this process and the store", r.name, err)
		}
	}
	if n, err := ro.Count(ctx, ""); err != nil || n != 2 {
		t.Fatalf("after the refusals the read-only store holds %d episodes, %v; want 2", n, err)
	}
	ro.Close()
	for _, r := range replacers(t, path, bak) {
		if err := r.run(); err != nil {
			t.Errorf("%s once the read-only store is closed: %v", r.name, err)
		}
	}

	lock, err := lockStore(path, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, path, Options{ReadOnly: true})
	if !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "open "+path) || !strings.Contains(err.Error(), "held by this process") {
		t.Errorf("read-only open under an exclusive lock: %v, want ErrHeld naming the store and this process", err)
	}
	lock.Close()
	openStore(t, path, Options{ReadOnly: true, Embedder: hashEmbedder(t, 32)}).Close() // re-embedded above
}

// unwritable makes dir a folder this process may not write, as a backup's
// folder is: its mode 0555. Permissions do not bind root, so run as root
// the lock file's creation is refused as the system would refuse it to
// anyone else: a missing file in a folder without write permission. It
// returns the function that makes dir writable again (a restorer who may
// write it).
func unwritable(t *testing.T, dir string) (writable func()) {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	writable = func() {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if os.Geteuid() != 0 {
		return writable
	}
	create := createLockFile
	t.Cleanup(func() { createLockFile = create })
	createLockFile = func(name string) (*os.File, error) {
		fi, err := os.Stat(filepath.Dir(name))
		if _, serr := os.Stat(name); errors.Is(serr, fs.ErrNotExist) && err == nil && fi.Mode().Perm()&0o200 == 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
		}
		return create(name)
	}
	return writable
}

// TestReadOnlyWithoutLockFile: a read-only store in a folder it may not
// write holds the lock file there if there is one; where there is none it
// holds nothing, and once a restore (by one who may write the folder) has
// replaced the file and a forget has removed a person from the new one,
// every read of the old Store fails with ErrReplaced instead of serving the
// replaced file, which still holds the person. Opened again, it serves the
// new file.
func TestReadOnlyWithoutLockFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path, bak := filepath.Join(dir, "memory.db"), filepath.Join(t.TempDir(), "backup.db")
	s := openStore(t, path, Options{})
	var eps []episode.Episode
	for _, text := range []string{"公園を散歩した", "ラーメンを食べた", "猫を見た"} {
		eps = append(eps, ep("pat", text, "いいね", day))
	}
	if _, err := s.Add(ctx, append(eps, ep("kim", "映画を見た", "どうだった？", day))); err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(ctx, bak); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// With a lock file there, a read-only open holds it.
	writable := unwritable(t, dir)
	ro := openStore(t, path, Options{ReadOnly: true})
	writable()
	if _, err := Restore(ctx, bak, path); !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "held by this process") {
		t.Fatalf("restore while a read-only store holds the lock file of an unwritable folder: %v, want ErrHeld", err)
	}
	ro.Close()

	// Without one, it holds nothing and checks the file at each read.
	if err := os.Remove(LockPath(path)); err != nil {
		t.Fatal(err)
	}
	writable = unwritable(t, dir)
	ro = openStore(t, path, Options{ReadOnly: true})
	if _, err := os.Stat(LockPath(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the read-only open made a lock file in an unwritable folder: %v", err)
	}
	if n, err := ro.Count(ctx, "pat"); err != nil || n != 3 {
		t.Fatalf("before the restore: %d episodes of pat, %v; want 3", n, err)
	}
	writable()
	if _, err := Restore(ctx, bak, path); err != nil {
		t.Fatalf("restore beside a read-only store without a lock file: %v", err)
	}
	w := openStore(t, path, Options{})
	if _, err := w.Forget(ctx, "pat"); err != nil {
		t.Fatal(err)
	}
	w.Close()

	vec, err := ro.Embedder().Embed(ctx, []string{"ラーメン"})
	if err != nil {
		t.Fatal(err)
	}
	var exported bytes.Buffer
	reads := []struct {
		name string
		run  func() error
	}{
		{"Count", func() error { _, err := ro.Count(ctx, "pat"); return err }},
		{"Export", func() error { _, err := ro.Export(ctx, "pat", &exported); return err }},
		{"Get", func() error { _, err := ro.Get(ctx, 1); return err }},
		{"Recent", func() error { _, err := ro.Recent(ctx, "pat", 10); return err }},
		{"BM25", func() error {
			_, err := ro.BM25(ctx, "pat", []string{"ラーメン"}, 10, episode.SearchFilter{})
			return err
		}},
		{"Nearest", func() error { _, err := ro.Nearest(ctx, "pat", vec, 10, episode.SearchFilter{}); return err }},
		{"Stats", func() error { _, err := ro.Stats(ctx); return err }},
		{"Backup", func() error { return ro.Backup(ctx, filepath.Join(t.TempDir(), "copy.db")) }},
		{"DB", func() error { return ro.DB().QueryRowContext(ctx, `SELECT count(*) FROM episodes`).Scan(new(int)) }},
	}
	for i, r := range reads {
		err := r.run()
		if !errors.Is(err, ErrReplaced) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s after the file was replaced: %v, want ErrReplaced naming the store", r.name, err)
		} else if i == 0 {
			t.Logf("%s refused: %v", r.name, err)
		}
	}
	if exported.Len() != 0 {
		t.Errorf("the replaced file was served: %q", exported.String())
	}
	ro.Close()

	ro = openStore(t, path, Options{ReadOnly: true})
	if n, err := ro.Count(ctx, "pat"); err != nil || n != 0 {
		t.Errorf("opened again: %d episodes of pat, %v; want 0", n, err)
	}
}
