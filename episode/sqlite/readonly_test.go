package sqlite

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide/episode"
)

// TestReadOnly: a store in a directory and a file no one may write (a backup
// copy) opens read-only: searches, reads, stats and check work, every write
// says ErrReadOnly and nothing is written; a writable open of it names the
// operating system's reason and the way out.
func TestReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root: file permissions do not bind; the read-only mode is still checked")
	}
	dir := filepath.Join(t.TempDir(), "backup")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "memory.db")
	s := openStore(t, path, Options{})
	if _, err := s.Add(ctx, []episode.Episode{ep("a", "ラーメン屋に行った", "いいね", day), ep("a", "カレーを作った", "", day)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })

	ro := openStore(t, path, Options{ReadOnly: true})
	if hits, err := ro.BM25(ctx, "a", []string{"ラーメン"}, 10, episode.SearchFilter{}); err != nil || len(hits) != 1 {
		t.Fatalf("BM25: %d hits, %v", len(hits), err)
	}
	vec, err := ro.Embedder().Embed(ctx, []string{"ラーメン"})
	if err != nil {
		t.Fatal(err)
	}
	if hits, err := ro.Nearest(ctx, "a", vec, 5, episode.SearchFilter{}); err != nil || len(hits[0]) != 2 {
		t.Fatalf("Nearest: %v, %v", hits, err)
	}
	if r, err := ro.Check(ctx); err != nil || len(r.Problems) != 0 || r.Episodes != 2 {
		t.Fatalf("Check: %+v, %v", r, err)
	}
	if _, err := ro.Add(ctx, []episode.Episode{ep("a", "x", "", day)}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Add: %v, want ErrReadOnly", err)
	}
	if _, err := ro.Delete(ctx, 1); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Delete: %v, want ErrReadOnly", err)
	}
	if _, err := ro.Forget(ctx, "a"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Forget: %v, want ErrReadOnly", err)
	}
	// Even a direct write on its connections is refused.
	if _, err := ro.DB().ExecContext(ctx, `DELETE FROM meta`); err == nil {
		t.Error("a write through DB() succeeded on a read-only store")
	}
	ro.Close()
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Error("the read-only store's file changed")
	}
	if os.Geteuid() != 0 {
		_, err := Open(ctx, path, Options{Embedder: hashEmbedder(t, 64)})
		if err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("a writable open of a read-only file: %v, want permission denied and the read-only hint", err)
		}
	}
	// A read-only open of a missing store names it.
	if _, err := Open(ctx, filepath.Join(dir, "none.db"), Options{Embedder: hashEmbedder(t, 64), ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("read-only open of a missing file: %v", err)
	}
}

// TestRefusesForeignDatabase: a SQLite file that holds other tables is not
// made an omoide store.
func TestRefusesForeignDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	s := openStore(t, path, Options{})
	s.Close()
	os.Remove(path)
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	db := openRaw(t, path)
	if _, err := db.ExecContext(ctx, `CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(ctx, path, Options{Embedder: hashEmbedder(t, 64)})
	if err == nil || !strings.Contains(err.Error(), "not an omoide store") || !strings.Contains(err.Error(), "invoices") {
		t.Fatalf("open of a database of other tables: %v", err)
	}
	db = openRaw(t, path)
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the file now holds %d schema entries (%v), want its one table", n, err)
	}
}

// openRaw opens a SQLite file with no omoide schema.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	return db
}
