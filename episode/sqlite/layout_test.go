package sqlite

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/omoide/omoide/episode"
)

// TestSmallPeopleCostLittle: a person with one episode costs a few KiB of
// the file, not a whole vector chunk of vec0's default 1,024 vectors (1 MiB
// at 256 dimensions, the layout before schema 6), and every person's KNN
// still finds their own episode alone.
func TestSmallPeopleCostLittle(t *testing.T) {
	const people = 100
	path := filepath.Join(t.TempDir(), "many.db")
	s := openStore(t, path, Options{Embedder: hashEmbedder(t, 256)})
	for i := range people {
		if _, err := s.Add(ctx, []episode.Episode{ep(fmt.Sprintf("p%03d", i), fmt.Sprintf("今日は%d番目の話をした", i), "うん", day)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if per := st.Size() / people; per > 24<<10 {
		t.Errorf("%d bytes per one-episode person, want at most 24 KiB", per)
	}
	vec, err := s.Embedder().Embed(ctx, []string{"今日は7番目の話をした"})
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"p007", "p042"} {
		hits, err := s.knn(ctx, who, vec[0], 10, episode.SearchFilter{})
		if err != nil || len(hits) != 1 {
			t.Fatalf("%s: %d hits, %v", who, len(hits), err)
		}
		e, err := s.Get(ctx, hits[0].ID)
		if err != nil || e.User != who {
			t.Fatalf("%s's KNN found %+v, %v", who, e, err)
		}
	}
}

// TestForgetHalfFreesHalf: forgetting half the people frees about half the
// file's live pages, and new people reuse them before the file grows.
func TestForgetHalfFreesHalf(t *testing.T) {
	const people = 200
	path := filepath.Join(t.TempDir(), "half.db")
	s := openStore(t, path, Options{Embedder: hashEmbedder(t, 256)})
	add := func(prefix string, n int) {
		for i := range n {
			u := fmt.Sprintf("%s%03d", prefix, i)
			if _, err := s.Add(ctx, []episode.Episode{ep(u, fmt.Sprintf("%sの話その一 %d", u, i), "うん", day), ep(u, fmt.Sprintf("%sの話その二 %d", u, i), "へえ", day)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	pages := func() (live, total int64) {
		if _, err := s.checkpoint(ctx); err != nil {
			t.Fatal(err)
		}
		var free int64
		if err := s.db.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count), (SELECT freelist_count FROM pragma_freelist_count)`).Scan(&total, &free); err != nil {
			t.Fatal(err)
		}
		return total - free, total
	}
	add("p", people)
	live0, total0 := pages()
	for i := 0; i < people; i += 2 {
		if _, err := s.Forget(ctx, fmt.Sprintf("p%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	live1, total1 := pages()
	var pageSize int64
	if err := s.db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Stats(ctx); err != nil || st.FreeBytes != (total1-live1)*pageSize {
		t.Errorf("Stats().FreeBytes = %d, %v; want the free list, %d bytes", st.FreeBytes, err, (total1-live1)*pageSize)
	}
	// The record of erasures grows by a row of about 50 bytes a forget:
	// its leaves and their interior page are not the people's.
	var erased int64
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM erasures`).Scan(&erased); err != nil {
		t.Fatal(err)
	}
	record := (erased*64+pageSize-1)/pageSize + 1
	if total1 != total0 || float64(live1-record) > 0.6*float64(live0) {
		t.Errorf("after forgetting half: %d live pages of %d (before %d of %d), want about half live", live1, total1, live0, total0)
	}
	add("q", people/2)
	live2, total2 := pages()
	// Without reuse the file would grow by about the pages freed.
	if freed := total1 - live1; total2-total0 > freed/4 || live2 < live1 {
		t.Errorf("after as many new people: %d pages (%d live), before the forget %d: the freed pages were not reused", total2, live2, total0)
	}
}
