package sqlite

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/tokenize"
)

// builtinBM25 is BM25 as FTS5's own bm25() scores it, counting every
// phrase's rows on each call: what omoide_bm25 and the cached counts must
// reproduce to the bit.
func builtinBM25(t *testing.T, s *Store, user string, terms []string, k int) []episode.Match {
	t.Helper()
	match := `{user_text reply_text} : (` + tokenize.MatchQuery(terms) + `)`
	mine, err := s.Count(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	if float64(mine) < personFilterShare*float64(s.docs.Load()) {
		match = `person : "` + PersonToken(user) + `" AND ` + match
	}
	rows, err := s.db.Query(`SELECT e.id, bm25(episodes_fts, 1.0, 1.0, 0.0) AS score
		FROM episodes_fts CROSS JOIN episodes e ON e.id = episodes_fts.rowid
		WHERE episodes_fts MATCH ? AND e.user = ? ORDER BY score, e.id LIMIT ?`, match, user, k)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := scanHits(rows, "bm25")
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// TestBM25MatchesFTS5 checks BM25's scores against FTS5's bm25() after every
// kind of write, made by this Store and by another one on the same file (as
// another process would): adds, deletes, updates, a person forgotten, a
// reindex. Equality is exact: the same doubles, the same order.
func TestBM25MatchesFTS5(t *testing.T) {
	path := filepath.Join(t.TempDir(), "omoide.db")
	a := openStore(t, path, Options{})
	b := openStore(t, path, Options{})
	words := []string{"ラーメン", "寿司", "猫", "犬", "山", "海", "映画", "音楽", "雨", "旅行", "母", "仕事", "Tokyo", "coffee", "「引用」"}
	users := []string{"alice", "bob", "carol"}
	rng := rand.New(rand.NewPCG(7, 11))
	text := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			if b.Len() > 0 {
				b.WriteString("と")
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String() + "の話"
	}
	n := 0
	write := func(s *Store, user string, count int) {
		eps := make([]episode.Episode, count)
		for i := range eps {
			n++
			eps[i] = ep(user, text(), text(), day)
			eps[i].ExternalID = fmt.Sprintf("x%d", n)
		}
		if _, err := s.Add(ctx, eps); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string) {
		t.Helper()
		for _, s := range []*Store{a, b} {
			s.docs.Store(int64(tableCounts(t, s)[0])) // another Store's writes are seen at open; here, now
			for _, user := range users {
				for range 4 {
					terms := []string{words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))]}
					got, err := s.BM25(ctx, user, terms, 50, episode.SearchFilter{})
					if err != nil {
						t.Fatalf("%s: BM25: %v", step, err)
					}
					want := builtinBM25(t, s, user, terms, 50)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%s: BM25(%s, %q)\n got  %v\n want %v", step, user, terms, got, want)
					}
					for i := range got {
						if got[i].Score != want[i].Score {
							t.Fatalf("%s: BM25(%s, %q): score of %d is %v, FTS5's %v", step, user, terms, got[i].ID, got[i].Score, want[i].Score)
						}
					}
				}
			}
		}
	}
	write(a, "alice", 30) // alice holds most of the store: her searches skip the person filter
	write(a, "bob", 5)
	check("added")
	write(b, "carol", 8)
	write(b, "bob", 3)
	check("added by the other store")
	ids, err := a.Recent(ctx, "bob", 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Delete(ctx, ids[0].ID, ids[1].ID); err != nil {
		t.Fatal(err)
	}
	check("deleted by the other store")
	up := ids[2]
	up.UserText, up.ReplyText = "猫と猫と猫の話", "雨"
	if _, err := a.Update(ctx, []episode.Episode{up}); err != nil {
		t.Fatal(err)
	}
	check("updated")
	write(a, "carol", 40) // carol now holds most: the filter switches sides
	check("carol grew")
	if _, err := b.Forget(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	check("alice forgotten")
	if _, err := a.Reindex(ctx, nil); err != nil {
		t.Fatal(err)
	}
	write(b, "alice", 2)
	check("reindexed")
}

// TestAddMergesIndex checks that the full-text index is merged into one
// segment once the episodes added since the last merge reach ftsMergeMin,
// and not before.
func TestAddMergesIndex(t *testing.T) {
	s := newStore(t)
	segments := func() int {
		var n int
		if err := s.db.QueryRow(`SELECT count(DISTINCT segid) FROM episodes_fts_idx`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	batch := func(from int) {
		eps := make([]episode.Episode, ftsMergeMin/2)
		for i := range eps {
			eps[i] = ep("alice", fmt.Sprintf("話 %d の猫", from+i), "", day)
		}
		if _, err := s.Add(ctx, eps); err != nil {
			t.Fatal(err)
		}
	}
	batch(0)
	batch(ftsMergeMin / 2)
	if n := segments(); n != 1 {
		t.Errorf("after %d episodes: %d segments, want 1 (merged)", ftsMergeMin, n)
	}
	batch(ftsMergeMin)
	if n := segments(); n != 2 {
		t.Errorf("after %d more: %d segments, want 2 (not due)", ftsMergeMin/2, n)
	}
}
