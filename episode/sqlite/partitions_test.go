package sqlite

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

var topics = []string{"ラーメン", "カレー", "寿司", "散歩", "映画", "仕事", "猫", "旅行", "雨", "試験"}

func topicEpisodes(user string, n int) []episode.Episode {
	out := make([]episode.Episode, n)
	for i := range out {
		t := topics[i%len(topics)]
		out[i] = ep(user, fmt.Sprintf("%sの話 その%d %s", t, i, topics[(i*7)%len(topics)]), fmt.Sprintf("%sはいいね %d", t, i/3), day.Add(time.Duration(i)*time.Hour))
	}
	return out
}

func hitIDs(hs []episode.Match) []int64 {
	out := make([]int64, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

// TestNearestMatchesKNN: the in-memory index returns what vec0's exact scan
// returns on a small store (its pool holds the whole partition), filters
// included, for every query in one call.
func TestNearestMatchesKNN(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "n.db"), Options{IndexMin: 1})
	if _, err := s.Add(ctx, topicEpisodes("a", 200)); err != nil {
		t.Fatal(err)
	}
	s.Add(ctx, topicEpisodes("b", 50))
	vecs, _ := s.Embedder().Embed(ctx, []string{"ラーメンの話", "猫と散歩した", "雨の日の映画"})
	filters := []episode.SearchFilter{
		{},
		{Since: day.Add(50 * time.Hour), Until: day.Add(120 * time.Hour)},
		{Kinds: []episode.Kind{episode.KindEpisode}, MaxSensitivity: episode.SensitivityNormal},
	}
	for fi, f := range filters {
		got, err := s.Nearest(ctx, "a", vecs, 10, f)
		if err != nil {
			t.Fatal(err)
		}
		for qi, v := range vecs {
			want, _ := s.knn(ctx, "a", v, 10, f)
			// The int8 distances may order near-ties differently: compare as sets, and the first.
			g, w := hitIDs(got[qi]), hitIDs(want)
			if len(g) != len(w) {
				t.Fatalf("filter %d query %d: %d hits, KNN %d", fi, qi, len(g), len(w))
			}
			for j := range got[qi] {
				if d := got[qi][j].Score - want[j].Score; d > 0.02 || d < -0.02 {
					t.Errorf("filter %d query %d rank %d: distance %.4f, exact %.4f", fi, qi, j, got[qi][j].Score, want[j].Score)
				}
			}
			slices.Sort(g)
			slices.Sort(w)
			if overlap := len(g) - len(setMinus(g, w)); overlap < len(w)-1 {
				t.Errorf("filter %d query %d: %v, KNN %v", fi, qi, g, w)
			}
		}
	}
}

func setMinus(a, b []int64) []int64 {
	var out []int64
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// TestNearestStaysCurrent: the loaded index sees this Store's adds and
// deletes, another Store's (another process's) writes, and forgetting.
func TestNearestStaysCurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	s := openStore(t, path, Options{IndexMin: 1})
	other := openStore(t, path, Options{IndexMin: 1, Embedder: s.Embedder()})
	s.Add(ctx, topicEpisodes("a", 30))
	q := "火星旅行の計画"
	vecs, _ := s.Embedder().Embed(ctx, []string{q})
	nearest := func(st *Store) []int64 {
		t.Helper()
		hs, err := st.Nearest(ctx, "a", vecs, 3, episode.SearchFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return hitIDs(hs[0])
	}
	nearest(s) // loads the index
	ids, _ := s.Add(ctx, []episode.Episode{ep("a", q, "", day)})
	if got := nearest(s); len(got) == 0 || got[0] != ids[0] {
		t.Fatalf("after own add: %v, want %d first", got, ids[0])
	}
	if s.parts.m["a"].gen == 0 || s.parts.m["a"].held.Load() != 31 {
		t.Fatalf("own add reloaded instead of appending: held %d", s.parts.m["a"].held.Load())
	}
	s.Delete(ctx, ids[0])
	if got := nearest(s); slices.Contains(got, ids[0]) {
		t.Fatalf("after own delete: %v still holds %d", got, ids[0])
	}
	ids2, _ := other.Add(ctx, []episode.Episode{ep("a", q+"です", "", day)})
	if got := nearest(s); len(got) == 0 || got[0] != ids2[0] {
		t.Fatalf("after another store's add: %v, want %d first", got, ids2[0])
	}
	other.Delete(ctx, ids2[0])
	if got := nearest(s); slices.Contains(got, ids2[0]) {
		t.Fatalf("after another store's delete: %v", got)
	}
	if _, err := s.Forget(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got := nearest(s); len(got) != 0 {
		t.Fatalf("after forgetting: %v", got)
	}
	if hs, err := s.Nearest(ctx, "nobody", vecs, 3, episode.SearchFilter{}); err != nil || len(hs[0]) != 0 {
		t.Fatalf("unknown person: %v, %v", hs, err)
	}
	if _, err := s.Nearest(ctx, "a", [][]float32{{1, 2}}, 3, episode.SearchFilter{}); err == nil {
		t.Fatal("a query of the wrong dimension was accepted")
	}
}

// TestNearestSmallPartitionUsesKNN: below IndexMin nothing is held in memory.
func TestNearestSmallPartitionUsesKNN(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "s.db"), Options{IndexMin: 100})
	s.Add(ctx, topicEpisodes("a", 20))
	vecs, _ := s.Embedder().Embed(ctx, []string{"カレー"})
	got, err := s.Nearest(ctx, "a", vecs, 5, episode.SearchFilter{})
	want, _ := s.knn(ctx, "a", vecs[0], 5, episode.SearchFilter{})
	if err != nil || !slices.Equal(hitIDs(got[0]), hitIDs(want)) {
		t.Fatalf("Nearest %v (%v), KNN %v", got, err, want)
	}
	if len(s.parts.m) != 0 {
		t.Fatalf("a small partition was indexed: %v", s.parts.m)
	}
}

// TestNearestExactScan: with IndexMin -1 even a big partition is scanned by
// vec0, query by query (concurrently): Nearest over several query vectors
// returns, in their order, exactly what each query's own exact scan returns,
// distances included, and holds nothing in memory.
func TestNearestExactScan(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "x.db"), Options{IndexMin: -1})
	if _, err := s.Add(ctx, topicEpisodes("a", DefaultIndexMin+44)); err != nil {
		t.Fatal(err)
	}
	s.Add(ctx, topicEpisodes("b", 50))
	vecs, _ := s.Embedder().Embed(ctx, []string{"ラーメンの話", "猫と散歩した", "雨の日の映画"})
	for _, f := range []episode.SearchFilter{{}, {Since: day.Add(50 * time.Hour), Until: day.Add(120 * time.Hour)}} {
		for _, k := range []int{1, 10, 500} {
			for _, qs := range [][][]float32{vecs[:1], vecs[:2], vecs} {
				got, err := s.Nearest(ctx, "a", qs, k, f)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(qs) {
					t.Fatalf("%d lists for %d queries", len(got), len(qs))
				}
				for qi, v := range qs {
					want, err := s.knn(ctx, "a", v, k, f)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got[qi], want) {
						t.Fatalf("k %d, %d queries, query %d: %v, exact scan %v", k, len(qs), qi, got[qi], want)
					}
				}
			}
		}
	}
	if len(s.parts.m) != 0 {
		t.Fatalf("IndexMin -1 indexed a partition: %v", s.parts.m)
	}
	nan := slices.Clone(vecs[1])
	nan[0] = float32(math.NaN())
	if _, err := s.Nearest(ctx, "a", [][]float32{vecs[0], nan}, 5, episode.SearchFilter{}); err == nil {
		t.Fatal("a NaN in the second query was accepted")
	}
}

// TestIndexCapacityEvicts: over the capacity the least recently searched
// partition is dropped and reloads on its next search.
func TestIndexCapacityEvicts(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "e.db"), Options{IndexMin: 1, IndexCapacity: 50})
	for _, u := range []string{"a", "b"} {
		s.Add(ctx, topicEpisodes(u, 30))
	}
	vecs, _ := s.Embedder().Embed(ctx, []string{"カレー"})
	for _, u := range []string{"a", "b", "a"} {
		if hs, err := s.Nearest(ctx, u, vecs, 5, episode.SearchFilter{}); err != nil || len(hs[0]) != 5 {
			t.Fatalf("%s: %v %v", u, hs, err)
		}
		s.parts.evict() // the loader's eviction runs in the background
	}
	if s.parts.total > 50 || s.parts.m["a"].held.Load() != 30 || s.parts.m["b"].held.Load() != 0 {
		t.Fatalf("held %d: a %d, b %d", s.parts.total, s.parts.m["a"].held.Load(), s.parts.m["b"].held.Load())
	}
}

// TestBM25HeldMatchesJoin: for a person whose vectors are held in memory,
// BM25 reads FTS5's best rows without the join on the episodes and keeps the
// person's that pass the filter by their index; the hits are the join's, to
// the score, for a person who holds most of the store (other people's rows
// matched) and one who holds little (their token in the match), under wide
// and narrow filters (a narrow one falls back to the join).
func TestBM25HeldMatchesJoin(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "h.db"), Options{IndexMin: 1})
	if _, err := s.Add(ctx, topicEpisodes("a", 300)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, topicEpisodes("b", 60)); err != nil {
		t.Fatal(err)
	}
	private := topicEpisodes("a", 40)
	for i := range private {
		private[i].ExternalID = fmt.Sprintf("p%d", i)
		private[i].Sensitivity = episode.SensitivityPrivate
		private[i].OccurredAt = private[i].OccurredAt.Add(500 * time.Hour)
	}
	if _, err := s.Add(ctx, private); err != nil {
		t.Fatal(err)
	}
	wide := []episode.SearchFilter{{MaxSensitivity: episode.SensitivityPrivate}, {MaxSensitivity: episode.SensitivityNormal}}
	narrow := episode.SearchFilter{Since: day.Add(250 * time.Hour), Until: day.Add(260 * time.Hour)}
	vecs, _ := s.Embedder().Embed(ctx, []string{"ラーメンの話"})
	for _, user := range []string{"a", "b"} {
		if _, err := s.Nearest(ctx, user, vecs, 5, episode.SearchFilter{}); err != nil { // loads the index
			t.Fatal(err)
		}
		filters := wide
		if user == "a" {
			filters = append(filters, narrow, episode.SearchFilter{Since: day.Add(100 * time.Hour), MaxSensitivity: episode.SensitivityPrivate})
		}
		for fi, f := range filters {
			for ti, ts := range [][]string{{"ラーメン"}, {"猫", "散歩", "いい"}, {"話"}} {
				want, _, err := s.bm25(ctx, user, ts, 10, f, false)
				if err != nil {
					t.Fatal(err)
				}
				got, held, err := s.bm25(ctx, user, ts, 10, f, true)
				if err != nil {
					t.Fatal(err)
				}
				if fi < len(wide) && !held || fi == len(wide) && held {
					t.Errorf("%s, filter %d, terms %d: read without the join: %v", user, fi, ti, held)
				}
				if len(want) == 0 || !slices.Equal(got, want) {
					t.Errorf("%s, filter %d, terms %d:\n got %v\nwant %v", user, fi, ti, got, want)
				}
			}
		}
	}
}

// TestAdjacentHeldMatchesSQL: a person's neighbours in time from their
// vector index are the SQL's, with equal times, episodes added out of order,
// another person's ids and ids never stored, before and after deletes.
func TestAdjacentHeldMatchesSQL(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "adj.db"), Options{IndexMin: 1})
	eps := topicEpisodes("a", 120)
	for i := range eps {
		eps[i].OccurredAt = day.Add(time.Duration((i*37)%50) * time.Hour) // out of order, many equal
	}
	ids, err := s.Add(ctx, eps)
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Add(ctx, topicEpisodes("b", 5))
	if err != nil {
		t.Fatal(err)
	}
	ask := append(slices.Clone(ids), other[0], 999999)
	compare := func(when string) {
		t.Helper()
		want := make([][2]int64, len(ask))
		if ok, err := s.adjacentHeld(ctx, "a", ask, want); err != nil || ok {
			t.Fatalf("%s: the index answered before it was loaded: %v", when, err)
		}
		want, err := s.Adjacent(ctx, "a", ask) // SQL: not loaded
		if err != nil {
			t.Fatal(err)
		}
		vecs, _ := s.Embedder().Embed(ctx, []string{"ラーメン"})
		if _, err := s.Nearest(ctx, "a", vecs, 5, episode.SearchFilter{}); err != nil {
			t.Fatal(err)
		}
		got := make([][2]int64, len(ask))
		if ok, err := s.adjacentHeld(ctx, "a", ask, got); err != nil || !ok {
			t.Fatalf("%s: the loaded index did not answer: %v", when, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: from the index %v\nfrom SQL %v", when, got, want)
		}
		s.parts.forget("a") // the next comparison asks SQL first
	}
	compare("stored")
	if _, err := s.Delete(ctx, ids[3], ids[40], ids[41], ids[119]); err != nil {
		t.Fatal(err)
	}
	late := ep("a", "遅れて届いた話", "", day.Add(7*time.Hour))
	more, err := s.Add(ctx, []episode.Episode{late})
	if err != nil {
		t.Fatal(err)
	}
	ask = append(ask, more...)
	compare("after deletes and a late add")
	// Added to the loaded index in place (out of order in time).
	vecs, _ := s.Embedder().Embed(ctx, []string{"ラーメン"})
	if _, err := s.Nearest(ctx, "a", vecs, 5, episode.SearchFilter{}); err != nil {
		t.Fatal(err)
	}
	more, err = s.Add(ctx, []episode.Episode{ep("a", "もっと遅れて届いた話", "", day.Add(3*time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	ask = append(ask, more...)
	got := make([][2]int64, len(ask))
	if ok, err := s.adjacentHeld(ctx, "a", ask, got); err != nil || !ok {
		t.Fatalf("the index kept up to date did not answer: %v", err)
	}
	s.parts.forget("a")
	if want, err := s.Adjacent(ctx, "a", ask); err != nil || !slices.Equal(got, want) {
		t.Errorf("after an add in place: from the index %v\nfrom SQL %v (%v)", got, want, err)
	}
}
