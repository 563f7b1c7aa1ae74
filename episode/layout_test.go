package episode

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
		if _, err := s.Add(ctx, []Episode{ep(fmt.Sprintf("p%03d", i), fmt.Sprintf("今日は%d番目の話をした", i), "うん", day)}); err != nil {
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
		hits, err := s.knn(ctx, who, vec[0], 10, Filter{})
		if err != nil || len(hits) != 1 {
			t.Fatalf("%s: %d hits, %v", who, len(hits), err)
		}
		e, err := s.Get(ctx, hits[0].ID)
		if err != nil || e.User != who {
			t.Fatalf("%s's KNN found %+v, %v", who, e, err)
		}
	}
}
