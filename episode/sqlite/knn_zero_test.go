package sqlite

import (
	"fmt"
	"testing"

	"github.com/omoide/omoide/episode"
)

// TestKNNZeroVector: a query or an episode of no words (a zero vector) has
// no cosine neighbour; the exact scan says so instead of failing.
func TestKNNZeroVector(t *testing.T) {
	s := newStore(t)
	var eps []episode.Episode
	for i := range 20 {
		eps = append(eps, ep("a", fmt.Sprintf("ラーメン%d", i), "", day))
	}
	eps = append(eps, ep("a", "。、", "", day))
	if _, err := s.Add(ctx, eps); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"ラーメン", ""} {
		vec, err := s.Embedder().Embed(ctx, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := s.knn(ctx, "a", vec[0], 50, episode.SearchFilter{})
		if err != nil || (q != "" && len(hits) < 20) || (q == "" && len(hits) != 0) {
			t.Errorf("%q: %d hits, %v", q, len(hits), err)
		}
	}
}
