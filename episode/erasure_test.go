package episode

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestoreForgetsAgain: two people ingested, a backup taken, one
// forgotten; the backup restored over the store holds no byte of the
// forgotten person and the other whole, and the record survives the restore.
func TestRestoreForgetsAgain(t *testing.T) {
	dir := t.TempDir()
	path, bak := filepath.Join(dir, "memory.db"), filepath.Join(dir, "backup.db")
	s := openStore(t, path, Options{Embedder: hashEmbedder(t, 64)})
	var eps []Episode
	for i := range 30 {
		eps = append(eps,
			ep("zoltanqx", fmt.Sprintf("秘密の合言葉はquixotrel%d", i), "ヴェルミリオン色の封筒", day),
			ep("bob", fmt.Sprintf("今日は公園を散歩した%d", i), "いいね", day))
	}
	if _, err := s.Add(ctx, eps); err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(ctx, bak); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteUser(ctx, "zoltanqx"); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Erasures(ctx)
	if err != nil || len(rec) != 1 || bytes.Contains(rec[0].Key, []byte("zoltanqx")) {
		t.Fatalf("record %v, %v: want one keyed hash", rec, err)
	}
	s.Close()
	// The backup holds the person: restoring it must not bring them back.
	if !bytes.Contains(fileBytes(t, bak), []byte("quixotrel7")) {
		t.Fatal("the backup does not hold the person: the test proves nothing")
	}

	r, err := Restore(ctx, bak, path)
	if err != nil {
		t.Fatal(err)
	}
	if r != (Restored{Episodes: 30, People: 1, Forgotten: 1, Erasures: 1}) {
		t.Errorf("Restore = %+v", r)
	}
	all := fileBytes(t, path)
	for _, secret := range []string{"zoltanqx", "quixotrel", "ヴェルミリオン"} {
		for _, enc := range encodings(secret) {
			if bytes.Contains(all, enc) {
				t.Errorf("the restored store holds %q", secret)
			}
		}
	}
	s = openStore(t, path, Options{Embedder: hashEmbedder(t, 64)})
	if n, _ := s.Count(ctx, "bob"); n != 30 {
		t.Errorf("bob has %d episodes after the restore, want 30", n)
	}
	if hits, err := s.BM25(ctx, "bob", []string{"公園"}, 50, Filter{}); err != nil || len(hits) != 30 {
		t.Errorf("bob's episodes found: %d, %v", len(hits), err)
	}
	if rec2, _ := s.Erasures(ctx); len(rec2) != 1 || !bytes.Equal(rec2[0].Key, rec[0].Key) {
		t.Errorf("record after the restore %v, want %v", rec2, rec)
	}
	for _, p := range []string{path + ".restoring", bak + "-wal"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left behind", p)
		}
	}
}

// TestRestoreKeepsWhoCameBack: a person forgotten before the backup and
// back since (their own choice) is not forgotten again by a restore of it.
func TestRestoreKeepsWhoCameBack(t *testing.T) {
	dir := t.TempDir()
	path, bak := filepath.Join(dir, "memory.db"), filepath.Join(dir, "backup.db")
	s := openStore(t, path, Options{Embedder: hashEmbedder(t, 64)})
	if _, err := s.Add(ctx, []Episode{ep("carol", "前の話", "うん", day)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteUser(ctx, "carol"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, []Episode{ep("carol", "また来たよ", "おかえり", day)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(ctx, bak); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r, err := Restore(ctx, bak, path)
	if err != nil || r.Forgotten != 0 || r.Episodes != 1 {
		t.Errorf("Restore = %+v, %v; want carol's return kept", r, err)
	}
}

// TestRestoreRefuses: a copy that is not a store leaves the store as it was.
func TestRestoreRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.db")
	s := openStore(t, path, Options{Embedder: hashEmbedder(t, 64)})
	if _, err := s.Add(ctx, []Episode{ep("bob", "散歩した", "いいね", day)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	notStore := filepath.Join(dir, "notes.txt")
	os.WriteFile(notStore, []byte("not a database"), 0o644)
	for _, from := range []string{filepath.Join(dir, "missing.db"), notStore} {
		if _, err := Restore(ctx, from, path); err == nil || !strings.Contains(err.Error(), from) {
			t.Errorf("Restore(%s): %v, want an error naming it", from, err)
		}
	}
	s = openStore(t, path, Options{Embedder: hashEmbedder(t, 64)})
	if n, _ := s.Count(ctx, "bob"); n != 1 {
		t.Errorf("the store lost bob after a failed restore: %d", n)
	}
	// A store gone with its disk: the copy comes back as it is.
	gone := filepath.Join(dir, "gone.db")
	if err := s.Backup(ctx, filepath.Join(dir, "b2.db")); err != nil {
		t.Fatal(err)
	}
	if r, err := Restore(ctx, filepath.Join(dir, "b2.db"), gone); err != nil || r.Episodes != 1 || r.Forgotten != 0 {
		t.Errorf("Restore to a missing store = %+v, %v", r, err)
	}
}
