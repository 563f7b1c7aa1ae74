package sqlite

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/tokenize"
)

// fileBytes returns the bytes of the store's file, its write-ahead log and
// its shared-memory index, whichever exist.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// encodings are the byte forms a text may take in the files: UTF-8 and
// UTF-16 (little and big endian).
func encodings(s string) [][]byte {
	u := utf16.Encode([]rune(s))
	le, be := make([]byte, 2*len(u)), make([]byte, 2*len(u))
	for i, c := range u {
		le[2*i], le[2*i+1] = byte(c), byte(c>>8)
		be[2*i], be[2*i+1] = byte(c>>8), byte(c)
	}
	return [][]byte{[]byte(s), le, be}
}

// TestEraseLeavesNoBytes: after Delete of an episode and Forget of a
// person, no byte of their words or of the person's name is left in the
// store's file, its write-ahead log or its shm, in UTF-8 or UTF-16, while
// what others said is still there and still found.
func TestEraseLeavesNoBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "erase.db")
	s, err := Open(ctx, path, Options{Embedder: hashEmbedder(t, 64), Analyzer: tokenize.KagomeSnowball()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Words only each erased text holds, as the analyzer indexes them too.
	var eps []episode.Episode
	for i := range 40 { // several FTS5 segments and vector chunks of each person
		z := ep("zoltanqx", fmt.Sprintf("秘密の合言葉はquixotrel%d 第%d回", i, i), "ヴェルミリオン色の封筒", day)
		z.Sensitivity = episode.Sensitivity(i % 3) // private and secret ones in the index of the sensitive (schema 9)
		eps = append(eps, z, ep("bob", fmt.Sprintf("今日は公園を散歩した%d", i), "いいね", day))
	}
	eps = append(eps, ep("bob", "冷蔵庫のプリンをmarzipanok食べた", "ずるい", day))
	ids, err := s.Add(ctx, eps)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // everything checkpointed into the file
		t.Fatal(err)
	}
	if s, err = Open(ctx, path, Options{Embedder: hashEmbedder(t, 64), Analyzer: tokenize.KagomeSnowball()}); err != nil {
		t.Fatal(err)
	}
	gone := []string{"quixotrel", "合言葉", "ヴェルミリオン", "zoltanqx", PersonToken("zoltanqx"), "marzipanok", "プリン"}
	before := fileBytes(t, path)
	for _, w := range gone {
		if !bytes.Contains(before, []byte(w)) {
			t.Fatalf("%q is not in the file before the erasure: the test shows nothing", w)
		}
	}

	if d, err := s.Delete(ctx, ids[len(ids)-1]); err != nil || len(d.Episodes) != 1 {
		t.Fatalf("Delete = %+v, %v", d, err)
	}
	er, err := s.Forget(ctx, "zoltanqx")
	if err != nil || er.Episodes != 40 || er.BytesFreed <= 0 || !er.Checkpointed {
		t.Fatalf("Forget = %+v, %v; want 40 episodes, bytes freed, checkpointed", er, err)
	}
	after := fileBytes(t, path)
	for _, w := range gone {
		for i, enc := range encodings(w) {
			if n := bytes.Count(after, enc); n > 0 {
				t.Errorf("%q (encoding %d) is still in the files %d times", w, i, n)
			}
		}
	}
	if !bytes.Contains(after, []byte("公園を散歩した")) {
		t.Error("bob's words are gone too")
	}
	hits, err := s.BM25(ctx, "bob", []string{"公園"}, 100, episode.SearchFilter{})
	if err != nil || len(hits) != 40 {
		t.Fatalf("bob's BM25 after the erasure: %d hits, %v", len(hits), err)
	}
	if n, err := s.Count(ctx, "zoltanqx"); err != nil || n != 0 {
		t.Fatalf("count of the forgotten: %d, %v", n, err)
	}
	var rows int
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM partitions WHERE user = 'zoltanqx'`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("partitions rows of the forgotten: %d, %v", rows, err)
	}
	// The person can come back, and is found again.
	if _, err := s.Add(ctx, []episode.Episode{ep("zoltanqx", "また来たよ", "おかえり", day)}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Count(ctx, "zoltanqx"); n != 1 {
		t.Fatalf("count after coming back: %d", n)
	}
	// Their vectors go in a new chunk of the vector index, found by its
	// exact scan as by the in-memory index.
	vec, err := s.Embedder().Embed(ctx, []string{"また来たよ"})
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"zoltanqx", "bob"} {
		hits, err := s.knn(ctx, who, vec[0], 5, episode.SearchFilter{})
		if err != nil || len(hits) == 0 {
			t.Fatalf("%s's KNN after the erasure: %d hits, %v", who, len(hits), err)
		}
	}
	r, err := s.Check(ctx)
	if err != nil || len(r.Problems) > 0 {
		t.Fatalf("check after the erasure: %+v, %v", r.Problems, err)
	}
	if strings.Contains(string(after), "zoltanqx") {
		t.Error("the name is in the files")
	}
}
