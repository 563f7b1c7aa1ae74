package sqlite

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide/episode"
)

// TestRestoreForgetsAgain: two people ingested, a backup taken, one
// forgotten; the backup restored over the store holds no byte of the
// forgotten person and the other whole, and the record survives the restore.
func TestRestoreForgetsAgain(t *testing.T) {
	dir := t.TempDir()
	path, bak := filepath.Join(dir, "memory.db"), filepath.Join(dir, "backup.db")
	s := openStore(t, path, Options{Embedder: hashEmbedder(t, 64)})
	var eps []episode.Episode
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
	if _, err := s.Forget(ctx, "zoltanqx"); err != nil {
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
	if hits, err := s.BM25(ctx, "bob", []string{"公園"}, 50, episode.SearchFilter{}); err != nil || len(hits) != 30 {
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
	if _, err := s.Add(ctx, []episode.Episode{ep("carol", "前の話", "うん", day)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(ctx, "carol"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, []episode.Episode{ep("carol", "また来たよ", "おかえり", day)}); err != nil {
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
	if _, err := s.Add(ctx, []episode.Episode{ep("bob", "散歩した", "いいね", day)}); err != nil {
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

// TestRestoreDeletesAgain: one episode deleted and another's text replaced
// after a backup; restoring the backup brings back neither the deleted
// episode nor the old text (not a byte of either in the file), says how many
// it deleted again, and does so again at a second restore of the same copy.
// The record holds keyed hashes, no text. An episode added again with the
// same content after its deletion, and one of two equal records of which
// the other was deleted, are other episodes: kept.
func TestRestoreDeletesAgain(t *testing.T) {
	dir := t.TempDir()
	path, bak, later := filepath.Join(dir, "memory.db"), filepath.Join(dir, "backup.db"), filepath.Join(dir, "later.db")
	s := openStore(t, path, Options{})
	gone := episode.Episode{User: "bob", ExternalID: "b1", UserText: "合言葉はquixotrel", ReplyText: "ヴェルミリオン色の封筒", OccurredAt: day}
	edited := episode.Episode{User: "bob", ExternalID: "b2", UserText: "旧姓はzembrakov", ReplyText: "覚えておくね", OccurredAt: day}
	kept := ep("bob", "公園を散歩した", "いいね", day)
	twin := ep("carol", "おはよう", "おはよう！", day) // two equal records, one deleted
	ids, err := s.Add(ctx, []episode.Episode{gone, edited, kept, twin, twin})
	if err != nil {
		t.Fatal(err)
	}
	again := ep("carol", "また言うね", "うん", day) // deleted, then added again
	againIDs, err := s.Add(ctx, []episode.Episode{again})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(ctx, bak); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Delete(ctx, ids[0], ids[4], againIDs[0]); err != nil || len(d.Episodes) != 3 {
		t.Fatalf("Delete = %+v, %v", d, err)
	}
	if _, err := s.Add(ctx, []episode.Episode{again}); err != nil {
		t.Fatal(err)
	}
	edited.UserText = "旧姓は言わないでおく"
	if r, err := s.Put(ctx, true, edited); err != nil || r.Replaced != 1 {
		t.Fatalf("Update = %+v, %v", r, err)
	}
	rec, err := s.Erasures(ctx)
	if err != nil || len(rec) != 4 {
		t.Fatalf("record %d, %v: want 4 erasures (3 deleted, 1 replaced)", len(rec), err)
	}
	for _, e := range rec {
		if bytes.Contains(e.Key, []byte("bob")) || len(e.Key) != 32 {
			t.Fatalf("record key %x: want a keyed hash", e.Key)
		}
	}
	if err := s.Backup(ctx, later); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, secret := range []string{"quixotrel", "zembrakov"} {
		if !bytes.Contains(fileBytes(t, bak), []byte(secret)) {
			t.Fatalf("the backup does not hold %q: the test proves nothing", secret)
		}
	}

	for round := range 2 { // the same copy, restored twice
		r, err := Restore(ctx, bak, path)
		if err != nil {
			t.Fatal(err)
		}
		// The copy: gone, edited (old), kept, two twins, again (old id).
		if r.Deleted != 4 || r.Forgotten != 0 || r.Episodes != 2 || r.Erasures != 4 {
			t.Errorf("round %d: Restore = %+v, want 4 deleted again of 6, 2 left, 4 erasures", round, r)
		}
		all := fileBytes(t, path)
		for _, secret := range []string{"quixotrel", "ヴェルミリオン", "zembrakov"} {
			for _, enc := range encodings(secret) {
				if bytes.Contains(all, enc) {
					t.Errorf("round %d: the restored store holds %q", round, secret)
				}
			}
		}
		s = openStore(t, path, Options{})
		got, err := s.GetMany(ctx, ids)
		if err != nil || len(got) != 2 || got[0].ID != ids[2] || got[1].ID != ids[3] {
			t.Errorf("round %d: episodes %v of %v left (%v), want the kept one and one twin", round, got, ids, err)
		}
		s.Close()
	}
	// A copy taken after the erasures holds nothing to erase again, and
	// keeps what came back.
	r, err := Restore(ctx, later, path)
	if err != nil || r.Deleted != 0 || r.Episodes != 4 {
		t.Errorf("Restore of a copy taken after the erasures = %+v, %v; want nothing deleted, 4 episodes", r, err)
	}
}

// TestRestoreMessages: a copy that is not an omoide store (not SQLite, or
// another program's SQLite database) is refused with an error naming it,
// not the work file beside the store, and the store is left as it was, file
// and mode; a restore keeps the mode the store had, or gives a new store's.
func TestRestoreMessages(t *testing.T) {
	s, path, bak := backedUpStore(t)
	s.Close()
	dir := filepath.Dir(path)
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite3", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (body TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := fileBytes(t, path)
	for _, tt := range []struct {
		from string
		want string
	}{
		{text, text + " is not an omoide store: not an SQLite database"},
		{other, other + " is not an omoide store: an SQLite database without omoide's tables"},
	} {
		_, err := Restore(ctx, tt.from, path)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), ".restoring") {
			t.Errorf("Restore(%s) = %v, want %q and no work file", tt.from, err, tt.want)
		}
		if !bytes.Equal(fileBytes(t, path), before) {
			t.Errorf("Restore(%s) changed the store", tt.from)
		}
	}
	if _, err := Restore(ctx, bak, path); err != nil {
		t.Fatal(err)
	}
	// A new store gets what Open gives a new file: 0644 less the umask.
	probe := filepath.Join(dir, "probe")
	f, err := os.OpenFile(probe, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fresh := filepath.Join(dir, "fresh.db")
	if _, err := Restore(ctx, bak, fresh); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{path: "-rw-r-----", fresh: mode(t, probe)} {
		if got := mode(t, p); got != want {
			t.Errorf("%s restored with mode %s, want %s", p, got, want)
		}
	}
}

func mode(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().String()
}

// TestRestoreKeepsIDsGiven: an id given after the copy was taken is not
// given again after the copy comes back: a client may still hold it, and
// the record of erasures names episodes by it.
func TestRestoreKeepsIDsGiven(t *testing.T) {
	dir := t.TempDir()
	path, bak := filepath.Join(dir, "memory.db"), filepath.Join(dir, "backup.db")
	s := openStore(t, path, Options{})
	if _, err := s.Add(ctx, []episode.Episode{ep("bob", "一つ目", "うん", day)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(ctx, bak); err != nil {
		t.Fatal(err)
	}
	later, err := s.Add(ctx, []episode.Episode{ep("bob", "二つ目", "うん", day)})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Restore(ctx, bak, path); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, path, Options{})
	ids, err := s.Add(ctx, []episode.Episode{ep("carol", "三つ目", "うん", day)})
	if err != nil {
		t.Fatal(err)
	}
	if ids[0] <= later[0] {
		t.Fatalf("after the restore a new episode got id %d; id %d was given after the copy was taken", ids[0], later[0])
	}
}
