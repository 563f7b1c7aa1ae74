package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/tokenize"
)

var (
	ctx = context.Background()
	day = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
)

func hashEmbedder(t testing.TB, dim int) embed.Embedder {
	t.Helper()
	h, err := embed.NewHash(embed.HashOptions{Dim: dim})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func openStore(t testing.TB, path string, opts Options) *Store {
	t.Helper()
	if opts.Embedder == nil {
		opts.Embedder = hashEmbedder(t, 64)
	}
	s, err := Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newStore(t testing.TB) *Store {
	return openStore(t, filepath.Join(t.TempDir(), "omoide.db"), Options{})
}

func ep(user, text, reply string, at time.Time) episode.Episode {
	return episode.Episode{User: user, UserText: text, ReplyText: reply, OccurredAt: at}
}

// tableCounts returns the rows of the episodes, FTS and vector tables.
func tableCounts(t *testing.T, s *Store) [3]int {
	t.Helper()
	var c [3]int
	for i, table := range []string{"episodes", "episodes_fts", "episodes_vec"} {
		if err := s.db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&c[i]); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestAddGetRoundTrip(t *testing.T) {
	s := newStore(t)
	in := episode.Episode{User: "haruka", ExternalID: "h:1", UserText: "昨日ラーメンを食べた", ReplyText: "いいね！",
		OccurredAt: day.Add(1500 * time.Millisecond), Kind: episode.KindFact, State: episode.StateValidated, Sensitivity: episode.SensitivityPrivate, Source: "chat"}
	ids, err := s.Add(ctx, []episode.Episode{in})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	in.ID = ids[0]
	in.OccurredAt = day.Add(time.Second) // second precision
	if got != in {
		t.Fatalf("Get = %+v\nwant  %+v", got, in)
	}
	if _, err := s.Get(ctx, 999); !errors.Is(err, episode.ErrNotFound) {
		t.Fatalf("Get(999) error = %v, want ErrNotFound", err)
	}
}

func TestAddDefaults(t *testing.T) {
	s := newStore(t)
	ids, err := s.Add(ctx, []episode.Episode{ep("u", "リマインダー: 15時に歯医者", "", day)})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Get(ctx, ids[0])
	if got.Kind != episode.KindEpisode || got.Source != episode.DefaultSource || got.ReplyText != "" {
		t.Fatalf("defaults not applied: %+v", got)
	}
}

// TestAddIdempotentByExternalID: re-adding a (user, external id) with the
// same content is a no-op, with other content ErrConflict and nothing
// written; Update replaces it, erasing the old version.
func TestAddIdempotentByExternalID(t *testing.T) {
	s := newStore(t)
	a := ep("u", "hello", "hi", day)
	a.ExternalID = "x1"
	b := a
	b.UserText = "changed"
	first, err := s.Add(ctx, []episode.Episode{a})
	if err != nil {
		t.Fatal(err)
	}
	// Again, and twice within one batch, and the same external id for another user.
	other := a
	other.User = "v"
	again, err := s.Add(ctx, []episode.Episode{a, a, other})
	if err != nil {
		t.Fatal(err)
	}
	if again[0] != first[0] || again[1] != first[0] || again[2] == first[0] {
		t.Fatalf("ids = %v then %v", first, again)
	}
	if c := tableCounts(t, s); c != [3]int{2, 2, 2} {
		t.Fatalf("table counts = %v, want 2 in each", c)
	}
	if id, err := s.IDByExternal(ctx, "u", "x1"); err != nil || id != first[0] {
		t.Fatalf("IDByExternal = %d, %v; want %d", id, err, first[0])
	}
	if id, err := s.IDByExternal(ctx, "u", "nope"); err != nil || id != 0 {
		t.Fatalf("IDByExternal(unknown) = %d, %v", id, err)
	}
	fresh := ep("u", "new one", "", day)
	if _, err := s.Add(ctx, []episode.Episode{fresh, b}); !errors.Is(err, episode.ErrConflict) || !strings.Contains(err.Error(), `"x1"`) {
		t.Fatalf("Add of other content under x1: %v, want ErrConflict naming it", err)
	}
	if c := tableCounts(t, s); c != [3]int{2, 2, 2} {
		t.Fatalf("a conflicting batch wrote: %v", c)
	}
	// Twice in one batch with other content is a conflict too.
	y, y2 := ep("u", "one", "", day), ep("u", "two", "", day)
	y.ExternalID, y2.ExternalID = "y", "y"
	if _, err := s.Add(ctx, []episode.Episode{y, y2}); !errors.Is(err, episode.ErrConflict) || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("one batch, one id, two contents: %v", err)
	}
	got, _ := s.Get(ctx, first[0])
	if got.UserText != "hello" {
		t.Fatalf("re-add overwrote the episode: %q", got.UserText)
	}
	// Update replaces: a new id, the new text searchable, the old one gone.
	ids, err := s.Update(ctx, []episode.Episode{b, other})
	if err != nil || ids[0] == first[0] || ids[1] != again[2] {
		t.Fatalf("Update = %v, %v (first %v, other %v)", ids, err, first, again[2])
	}
	if c := tableCounts(t, s); c != [3]int{2, 2, 2} {
		t.Fatalf("after update: %v", c)
	}
	if _, err := s.Get(ctx, first[0]); !errors.Is(err, episode.ErrNotFound) {
		t.Errorf("the old version: %v", err)
	}
	if got, _ := s.Get(ctx, ids[0]); got.UserText != "changed" || got.ExternalID != "x1" {
		t.Errorf("the new version: %+v", got)
	}
	if hits, err := s.BM25(ctx, "u", strings.Fields(s.Analyzer().Index("changed")), 10, episode.SearchFilter{}); err != nil || len(hits) != 1 || hits[0].ID != ids[0] {
		t.Errorf("BM25 of the new text: %v, %v", hits, err)
	}
	if hits, err := s.BM25(ctx, "u", strings.Fields(s.Analyzer().Index("hello")), 10, episode.SearchFilter{}); err != nil || len(hits) != 0 {
		t.Errorf("BM25 of the old text: %v, %v", hits, err)
	}
	if n, _ := s.Count(ctx, "u"); n != 1 {
		t.Errorf("count of u: %d", n)
	}
}

func TestAddRejectsBadInputAndWritesNothing(t *testing.T) {
	s := newStore(t)
	if _, err := s.Add(ctx, []episode.Episode{ep("u", "kept", "", day)}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		bad  episode.Episode
		want string
	}{
		{"invalid utf-8 user text", ep("u", "ok\xff", "", day), "user text is not valid UTF-8"},
		{"invalid utf-8 reply", ep("u", "ok", "\xc3\x28", day), "reply text is not valid UTF-8"},
		{"empty user", ep("", "text", "", day), "user is empty"},
		{"whitespace user", ep(" \t", "text", "", day), `user " \t" is only white space`},
		{"bad sensitivity", episode.Episode{User: "u", UserText: "x", OccurredAt: day, Sensitivity: 7}, "sensitivity 7 is out of range"},
		{"no text", ep("u", "", "", day), "neither user text nor reply text"},
		{"no time", ep("u", "x", "", time.Time{}), "occurred_at is not set"},
		{"bad state", episode.Episode{User: "u", UserText: "x", OccurredAt: day, State: 9}, "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The bad episode comes second: the good first one must not land either.
			_, err := s.Add(ctx, []episode.Episode{ep("u", "would be lost", "", day), tt.bad})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "episode 1") {
				t.Fatalf("error = %v, want one naming episode 1 and %q", err, tt.want)
			}
			if c := tableCounts(t, s); c != [3]int{1, 1, 1} {
				t.Fatalf("table counts = %v after a rejected batch", c)
			}
		})
	}
}

type badEmbedder struct {
	id  embed.Identity
	vec []float32
	err error
}

func (b badEmbedder) Identity() embed.Identity { return b.id }
func (b badEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if b.err != nil {
		return nil, b.err
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = b.vec
	}
	return out, nil
}

func TestAddEmbedderFailuresWriteNothing(t *testing.T) {
	id := embed.Identity{Name: "fake", Dim: 4}
	tests := []struct {
		name string
		e    badEmbedder
		want string
	}{
		{"error", badEmbedder{id: id, err: errors.New("boom")}, "boom"},
		{"wrong dimension", badEmbedder{id: id, vec: []float32{1, 0}}, "2 dimensions"},
		{"NaN", badEmbedder{id: id, vec: []float32{1, 0, 0, float32NaN()}}, "NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, filepath.Join(t.TempDir(), "x.db"), Options{Embedder: tt.e})
			_, err := s.Add(ctx, []episode.Episode{ep("u", "x", "", day)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if c := tableCounts(t, s); c != [3]int{} {
				t.Fatalf("table counts = %v", c)
			}
		})
	}
}

func float32NaN() float32 {
	var zero float32
	return zero / zero
}

func TestDeleteAndForget(t *testing.T) {
	s := newStore(t)
	ids, err := s.Add(ctx, []episode.Episode{ep("a", "one", "1", day), ep("a", "two", "2", day), ep("b", "three", "3", day)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Delete(ctx, ids[0], 12345)
	if err != nil || len(d.Episodes) != 1 {
		t.Fatalf("Delete = %+v, %v; want 1", d, err)
	}
	if c := tableCounts(t, s); c != [3]int{2, 2, 2} {
		t.Fatalf("after delete: %v", c)
	}
	er, err := s.Forget(ctx, "a")
	if err != nil || er.Episodes != 1 {
		t.Fatalf("Forget = %+v, %v; want 1 episode", er, err)
	}
	if c := tableCounts(t, s); c != [3]int{1, 1, 1} {
		t.Fatalf("after forget: %v", c)
	}
	if got, _ := s.Count(ctx, "b"); got != 1 {
		t.Fatalf("b lost episodes: %d", got)
	}
}

// TestOpenWithoutEmbedder opens a store with the embedder it recorded, for
// the work that embeds nothing, and refuses what needs vectors.
func TestOpenWithoutEmbedder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "omoide.db")
	if _, err := Open(ctx, path, Options{}); !errors.Is(err, ErrNoEmbedder) || Exists(path) {
		t.Fatalf("a new store without an embedder: %v (created: %v), want ErrNoEmbedder and no file", err, Exists(path))
	}
	s := openStore(t, path, Options{Embedder: hashEmbedder(t, 48)})
	if _, err := s.Add(ctx, []episode.Episode{ep("a", "one", "1", day), ep("b", "two", "2", day)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if id := s.Embedder().Identity(); id != hashEmbedder(t, 48).Identity() {
		t.Errorf("identity %s, want the recorded one", id)
	}
	if _, err := s.Add(ctx, []episode.Episode{ep("a", "three", "3", day)}); !errors.Is(err, ErrNoEmbedder) {
		t.Errorf("Add: %v, want ErrNoEmbedder", err)
	}
	if er, err := s.Forget(ctx, "a"); err != nil || er.Episodes != 1 {
		t.Errorf("Forget = %+v, %v", er, err)
	}
	if n, err := s.Count(ctx, "b"); n != 1 || err != nil {
		t.Errorf("Count(b) = %d, %v", n, err)
	}
}

func TestRecentOldestFirst(t *testing.T) {
	s := newStore(t)
	var eps []episode.Episode
	for i := range 5 {
		eps = append(eps, ep("u", string(rune('a'+i)), "", day.Add(time.Duration(i)*time.Hour)))
	}
	eps = append(eps, ep("other", "z", "", day.Add(10*time.Hour)))
	if _, err := s.Add(ctx, eps); err != nil {
		t.Fatal(err)
	}
	got, err := s.Recent(ctx, "u", 3)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range got {
		texts = append(texts, e.UserText)
	}
	if !slices.Equal(texts, []string{"c", "d", "e"}) {
		t.Fatalf("Recent = %v", texts)
	}
}

// TestConversation: the last exchanges of a person that pass the filter and
// have a reply, oldest first; an unanswered notification, another kind, a
// more private episode and another person's are not part of it.
func TestConversation(t *testing.T) {
	s := newStore(t)
	at := func(i int) time.Time { return day.Add(time.Duration(i) * time.Hour) }
	eps := []episode.Episode{
		ep("u", "a", "ra", at(0)), ep("u", "b", "rb", at(1)), ep("u", "c", "rc", at(2)),
		ep("u", "notice", "", at(3)),
		{User: "u", UserText: "fact", ReplyText: "rf", OccurredAt: at(4), Kind: episode.KindFact},
		{User: "u", UserText: "secret", ReplyText: "rs", OccurredAt: at(5), Sensitivity: episode.SensitivitySecret},
		ep("u", "d", "rd", at(6)),
		ep("other", "z", "rz", at(7)),
	}
	if _, err := s.Add(ctx, eps); err != nil {
		t.Fatal(err)
	}
	got, err := s.Conversation(ctx, "u", 3, episode.SearchFilter{Kinds: []episode.Kind{episode.KindEpisode}})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range got {
		texts = append(texts, e.UserText)
	}
	if !slices.Equal(texts, []string{"b", "c", "d"}) {
		t.Fatalf("Conversation = %v, want b c d", texts)
	}
	if got, err := s.Conversation(ctx, "u", 2, episode.SearchFilter{MaxSensitivity: episode.SensitivitySecret}); err != nil || len(got) != 2 || got[0].UserText != "secret" {
		t.Fatalf("Conversation up to secret = %+v, %v", got, err)
	}
}

func TestKNNFiltersAndPartitions(t *testing.T) {
	s := newStore(t)
	text := "週末はキャンプに行った"
	eps := []episode.Episode{
		ep("a", text, "", day),                       // 0: match
		{User: "b", UserText: text, OccurredAt: day}, // 1: other user
		{User: "a", UserText: text, OccurredAt: day, Kind: episode.KindFact},
		{User: "a", UserText: text, OccurredAt: day, State: episode.StateArchived},
		{User: "a", UserText: text, OccurredAt: day, Sensitivity: episode.SensitivitySecret},
		ep("a", text, "", day.AddDate(-2, 0, 0)), // 5: too old
	}
	ids, err := s.Add(ctx, eps)
	if err != nil {
		t.Fatal(err)
	}
	vec, _ := s.Embedder().Embed(ctx, []string{text})
	f := episode.SearchFilter{Kinds: []episode.Kind{episode.KindEpisode}, States: []episode.State{episode.StateRaw, episode.StateValidated, episode.StateConsolidated}, Since: day.AddDate(-1, 0, 0)}
	hits, err := s.knn(ctx, "a", vec[0], 10, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != ids[0] {
		t.Fatalf("KNN = %+v, want only episode %d", hits, ids[0])
	}
	if hits[0].Score > 1e-6 {
		t.Fatalf("distance of an identical text = %v", hits[0].Score)
	}
	// The zero filter admits every kind, state and time, sensitivity normal only.
	hits, _ = s.knn(ctx, "a", vec[0], 10, episode.SearchFilter{})
	if len(hits) != 4 {
		t.Fatalf("zero filter: %d hits, want 4", len(hits))
	}
	if _, err := s.knn(ctx, "a", []float32{1}, 10, f); err == nil {
		t.Fatal("KNN with a wrong-size vector did not fail")
	}
	// SearchFilter.Admits decides as the searches' SQL does, episode by episode.
	stored, err := s.GetMany(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	until := episode.SearchFilter{Until: day, MaxSensitivity: episode.SensitivitySecret}
	for _, f := range []episode.SearchFilter{f, {}, until, {Kinds: []episode.Kind{episode.KindFact}, MaxSensitivity: episode.SensitivitySecret}} {
		hits, err := s.knn(ctx, "a", vec[0], 10, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range stored {
			found := slices.ContainsFunc(hits, func(h episode.Match) bool { return h.ID == e.ID })
			if e.User == "a" && f.Admits(e) != found {
				t.Errorf("filter %+v: Admits(%d) = %v, the search found it: %v", f, e.ID, f.Admits(e), found)
			}
		}
	}
}

func TestBM25FindsWordsInsideJapaneseClauses(t *testing.T) {
	for _, tt := range []struct {
		analyzer tokenize.Analyzer
		want     int
	}{
		{tokenize.Kagome(), 1}, // segmented: ラーメン is a term of 昨日ラーメンを食べた
		{tokenize.Raw(), 0},    // defect 1 of the reference: the clause is one token
	} {
		t.Run(tt.analyzer.Name(), func(t *testing.T) {
			s := openStore(t, filepath.Join(t.TempDir(), "x.db"), Options{Analyzer: tt.analyzer})
			if _, err := s.Add(ctx, []episode.Episode{ep("a", "昨日ラーメンを食べた", "", day), ep("b", "ラーメン", "", day)}); err != nil {
				t.Fatal(err)
			}
			hits, err := s.BM25(ctx, "a", tt.analyzer.Terms("ラーメン"), 10, episode.SearchFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != tt.want {
				t.Fatalf("%d hits, want %d", len(hits), tt.want)
			}
		})
	}
}

func TestBM25HostileQueries(t *testing.T) {
	s := newStore(t)
	if _, err := s.Add(ctx, []episode.Episode{ep("a", `he said "NEAR(x y)" AND col:x`, "", day)}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`"`, `NEAR(`, `col:x`, `*`, `^x`, "a\x00b", `AND OR NOT`, `)`, ""} {
		if _, err := s.BM25(ctx, "a", s.Analyzer().Terms(q), 10, episode.SearchFilter{}); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
}

// TestBM25Terms: BM25 quotes each term itself (tokenize.MatchQuery), so a
// term FTS5 would read as syntax (AND, a double quote, NEAR) is searched as
// text, and no terms, or none with content, search nothing.
func TestBM25Terms(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "x.db"), Options{Analyzer: tokenize.Raw()})
	ids, err := s.Add(ctx, []episode.Episode{ep("a", `he said "NEAR(x y)" AND col:x`, "", day), ep("a", "ラーメン", "", day), ep("b", "and ラーメン", "", day)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		terms []string
		want  []int64
	}{
		{nil, nil},
		{[]string{}, nil},
		{[]string{"\x00", " "}, nil}, // nothing left once MatchQuery drops what FTS5 cannot take
		{[]string{"AND"}, ids[:1]},
		{[]string{"NOT", "ラーメン"}, ids[1:2]},
		{[]string{`"NEAR(x`}, ids[:1]}, // the quote doubled: the phrase "near x"
		{[]string{`"`}, nil},
		{[]string{`col:x`}, ids[:1]},
	} {
		hits, err := s.BM25(ctx, "a", tt.terms, 10, episode.SearchFilter{})
		if err != nil {
			t.Errorf("terms %q: %v", tt.terms, err)
			continue
		}
		var got []int64
		for _, h := range hits {
			got = append(got, h.ID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("terms %q: hits %v, want %v", tt.terms, got, tt.want)
		}
	}
}

func TestReopenChecksIdentity(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openStore(t, path, Options{Embedder: hashEmbedder(t, 64), Analyzer: tokenize.Bigram()})
	if _, err := s.Add(ctx, []episode.Episode{ep("a", "東京タワー", "", day)}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Same embedder, analyzer taken from the store.
	s2 := openStore(t, path, Options{Embedder: hashEmbedder(t, 64)})
	if s2.Analyzer().Name() != tokenize.BigramName {
		t.Fatalf("analyzer = %s, want the recorded bigram", s2.Analyzer().Name())
	}
	if n, _ := s2.Count(ctx, ""); n != 1 {
		t.Fatalf("reopened store has %d episodes", n)
	}
	s2.Close()

	m, err := ReadMeta(ctx, path)
	if err != nil || m != (Meta{SchemaVersion: SchemaVersion, Embedder: hashEmbedder(t, 64).Identity(), Analyzer: tokenize.BigramName}) {
		t.Fatalf("ReadMeta = %+v, %v", m, err)
	}
	_, err = Open(ctx, path, Options{Embedder: hashEmbedder(t, 32)})
	if err == nil || !strings.Contains(err.Error(), "/64") || !strings.Contains(err.Error(), "/32") {
		t.Fatalf("different embedder: error = %v, want one naming both identities", err)
	}
	_, err = Open(ctx, path, Options{Embedder: hashEmbedder(t, 64), Analyzer: tokenize.Raw()})
	if err == nil || !strings.Contains(err.Error(), `"bigram"`) || !strings.Contains(err.Error(), `"raw"`) {
		t.Fatalf("different analyzer: error = %v", err)
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openStore(t, path, Options{})
	if _, err := s.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, path, Options{Embedder: hashEmbedder(t, 64)}); err == nil || !strings.Contains(err.Error(), "99") {
		t.Fatalf("error = %v, want one naming schema 99", err)
	}
}

func TestConcurrentAddAndRead(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Go(func() {
			for i := range 20 {
				e := ep("u", "message", "reply", day.Add(time.Duration(i)*time.Minute))
				e.ExternalID = string(rune('a'+w)) + string(rune('a'+i))
				if _, err := s.Add(ctx, []episode.Episode{e}); err != nil {
					errs <- err
				}
			}
		})
		wg.Go(func() {
			for range 20 {
				if _, err := s.BM25(ctx, "u", []string{"message"}, 5, episode.SearchFilter{}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if c := tableCounts(t, s); c != [3]int{80, 80, 80} {
		t.Fatalf("table counts = %v, want 80 each", c)
	}
}

func TestStatsAndReembed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := openStore(t, path, Options{Embedder: hashEmbedder(t, 64)})
	ids, err := s.Add(ctx, []episode.Episode{ep("a", "ラーメン", "", day), ep("a", "カレー", "", day), ep("b", "うどん", "", day)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Path() != path {
		t.Fatalf("Path() = %q, want %q", s.Path(), path)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Episodes != 3 || st.Users != 2 || st.FTSRows != 3 || st.VectorRows != 3 || st.FileBytes == 0 || st.Embedder.Dim != 64 {
		t.Fatalf("stats = %+v", st)
	}
	s.Close()

	// A failing embedder leaves the old vectors and identity in place.
	if _, err := Reembed(ctx, path, badEmbedder{id: embed.Identity{Name: "fake", Dim: 8}, err: errors.New("down")}, 2, nil); err == nil {
		t.Fatal("reembed with a failing embedder succeeded")
	}
	openStore(t, path, Options{Embedder: hashEmbedder(t, 64)}).Close()

	var calls []int
	n, err := Reembed(ctx, path, hashEmbedder(t, 32), 2, func(done, total int) { calls = append(calls, done, total) })
	if err != nil || n != 3 {
		t.Fatalf("Reembed = %d, %v", n, err)
	}
	if !slices.Equal(calls, []int{2, 3, 3, 3}) {
		t.Fatalf("progress calls = %v", calls)
	}
	if _, err := Open(ctx, path, Options{Embedder: hashEmbedder(t, 64)}); err == nil {
		t.Fatal("the old embedder still opens a re-embedded store")
	}
	s2 := openStore(t, path, Options{Embedder: hashEmbedder(t, 32)})
	vec, _ := s2.Embedder().Embed(ctx, []string{"ラーメン"})
	hits, err := s2.knn(ctx, "a", vec[0], 1, episode.SearchFilter{})
	if err != nil || len(hits) != 1 || hits[0].ID != ids[0] {
		t.Fatalf("KNN after reembed = %+v, %v", hits, err)
	}
}

func TestBetweenAndUntil(t *testing.T) {
	s := newStore(t)
	ids, err := s.Add(ctx, []episode.Episode{ep("u", "a", "", day), ep("u", "b", "", day.Add(time.Hour)), ep("u", "c", "", day.Add(2*time.Hour)), ep("v", "d", "", day.Add(time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Between(ctx, "u", 10, episode.SearchFilter{Since: day.Add(time.Hour), Until: day.Add(2 * time.Hour)})
	if err != nil || len(got) != 1 || got[0].ID != ids[1] {
		t.Fatalf("Between = %+v, %v; want only episode %d ([since, until) is half-open)", got, err, ids[1])
	}
	got, _ = s.Between(ctx, "u", 2, episode.SearchFilter{})
	if len(got) != 2 || got[0].ID != ids[2] || got[1].ID != ids[1] {
		t.Fatalf("Between newest first, limit 2 = %+v", got)
	}
	vec, _ := s.Embedder().Embed(ctx, []string{"a"})
	hits, _ := s.knn(ctx, "u", vec[0], 10, episode.SearchFilter{Until: day.Add(time.Hour)})
	if len(hits) != 1 || hits[0].ID != ids[0] {
		t.Fatalf("KNN with Until = %+v", hits)
	}
}

func TestDocFreqAndGetManyTerms(t *testing.T) {
	s := newStore(t)
	ids, err := s.Add(ctx, []episode.Episode{ep("a", "昨日ラーメンを食べた", "いいね", day), ep("b", "ラーメン屋", "", day), ep("a", "カレー", "", day)})
	if err != nil {
		t.Fatal(err)
	}
	df, total, err := s.DocFreq(ctx, []string{"ラーメン", "カレー", "寿司"})
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || !slices.Equal(df, []int{2, 1, 0}) {
		t.Fatalf("DocFreq = %v of %d, want [2 1 0] of 3", df, total)
	}
	// The cached count follows the store once it has grown by more than 1%.
	s.Add(ctx, []episode.Episode{ep("c", "ラーメン", "", day)})
	if df, total, _ = s.DocFreq(ctx, []string{"ラーメン", "寿司"}); total != 4 || !slices.Equal(df, []int{3, 0}) {
		t.Fatalf("after an add: DocFreq = %v of %d, want [3 0] of 4", df, total)
	}
	eps, terms, err := s.GetManyTerms(ctx, []int64{ids[0], 999})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 || eps[0].ID != ids[0] || len(terms) != 1 || !slices.Contains(terms[0].User, "ラーメン") || !slices.Contains(terms[0].User, "食べる") || !slices.Equal(terms[0].Reply, []string{"いい"}) {
		t.Fatalf("GetManyTerms = %v, %q", eps, terms)
	}
	// What FTS5 itself holds for each row, user text and reply apart, in the order asked.
	order := []int64{ids[2], ids[0], ids[1]}
	eps, all, err := s.GetManyTerms(ctx, order)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range order {
		var user, reply string
		if err := s.DB().QueryRowContext(ctx, `SELECT user_text, reply_text FROM episodes_fts WHERE rowid = ?`, id).Scan(&user, &reply); err != nil {
			t.Fatal(err)
		}
		if eps[i].ID != id || !slices.Equal(all[i].User, strings.Fields(user)) || !slices.Equal(all[i].Reply, strings.Fields(reply)) {
			t.Errorf("GetManyTerms: episode %d with %q, FTS5 holds %d with %q and %q", eps[i].ID, all[i], id, user, reply)
		}
	}
}

func TestMigrateFromV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	s := openStore(t, path, Options{})
	if _, err := s.Add(ctx, []episode.Episode{ep("a", "ラーメン", "", day), ep("b", "ラーメン", "", day)}); err != nil {
		t.Fatal(err)
	}
	// Make it a version 1 store, as the first release wrote it (its FTS
	// table had no person column).
	if _, err := s.db.Exec(`DROP TABLE episodes_vocab; DROP INDEX episodes_filter; DROP TRIGGER episodes_partition_insert;
		DROP TRIGGER episodes_partition_delete; DROP TRIGGER episodes_partition_update; DROP TABLE partitions;
		DROP TRIGGER episodes_fts_removal;
		DROP TABLE erasures; DELETE FROM meta WHERE key = 'erasure_key';
		DROP INDEX episodes_sensitive;
		ALTER TABLE episodes DROP COLUMN vq;
		CREATE TABLE fts_rows AS SELECT rowid AS id, user_text, reply_text FROM episodes_fts;
		DROP TABLE episodes_fts;
		CREATE VIRTUAL TABLE episodes_fts USING fts5 (user_text, reply_text, tokenize = 'unicode61');
		INSERT INTO episodes_fts (rowid, user_text, reply_text) SELECT id, user_text, reply_text FROM fts_rows;
		DROP TABLE fts_rows;
		PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openStore(t, path, Options{IndexMin: 1})
	df, _, err := s.DocFreq(ctx, []string{"ラーメン"})
	if err != nil || df[0] != 2 {
		t.Fatalf("after migrating 1 -> %d: DocFreq = %v, %v", SchemaVersion, df, err)
	}
	// Version 4 gave every FTS row its person: BM25 finds a's episode only.
	hits, err := s.BM25(ctx, "a", []string{"ラーメン"}, 5, episode.SearchFilter{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("after migrating 1 -> %d: BM25 = %v, %v", SchemaVersion, hits, err)
	}
	if r, err := s.Check(ctx); err != nil || len(r.Problems) != 0 {
		t.Fatalf("after migrating: check: %v, %v", r.Problems, err)
	}
	// Version 3 quantized the stored vector: the in-memory index finds it.
	vecs, _ := s.Embedder().Embed(ctx, []string{"ラーメン"})
	near, err := s.Nearest(ctx, "a", vecs, 5, episode.SearchFilter{})
	if err != nil || len(near[0]) != 1 || near[0][0].Score > 0.01 {
		t.Fatalf("after migrating 1 -> 3: Nearest = %v, %v", near, err)
	}
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != SchemaVersion {
		t.Fatalf("user_version = %d", v)
	}
}

// TestMigrateFromV8: schema 9 indexes a schema-8 store's sensitive
// episodes, those it held before, so that the counts under a ceiling are
// right at once: a person of secrets alone is hidden below secret.
func TestMigrateFromV8(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v8.db")
	s := openStore(t, path, Options{})
	addEpisodes(t, s,
		ep("haruka", "あ", "", day), sensitive(ep("haruka", "い", "", day), episode.SensitivityPrivate),
		sensitive(ep("haruka", "う", "", day), episode.SensitivitySecret), sensitive(ep("haruka", "え", "", day), episode.SensitivitySecret),
		sensitive(ep("kenji", "お", "", day), episode.SensitivitySecret))
	// Make it a version 8 store, as it was before the index.
	if _, err := s.db.Exec(`DROP INDEX episodes_sensitive; PRAGMA user_version = 8`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openStore(t, path, Options{})
	var v, indexes int
	if err := s.db.QueryRow(`SELECT (SELECT user_version FROM pragma_user_version),
		(SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'episodes_sensitive')`).Scan(&v, &indexes); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion || indexes != 1 {
		t.Fatalf("after migrating: user_version %d, %d episodes_sensitive; want %d and 1", v, indexes, SchemaVersion)
	}
	for _, tc := range []struct {
		ceiling       episode.Sensitivity
		haruka, kenji int
		people        string
	}{
		{episode.SensitivityNormal, 1, 0, "[{{haruka 1} 2025-06-01 12:00:00 +0000 UTC}]"},
		{episode.SensitivityPrivate, 2, 0, "[{{haruka 2} 2025-06-01 12:00:00 +0000 UTC}]"},
		{episode.SensitivitySecret, 4, 1, "[{{haruka 4} 2025-06-01 12:00:00 +0000 UTC} {{kenji 1} 2025-06-01 12:00:00 +0000 UTC}]"},
	} {
		h, err1 := s.CountUpTo(ctx, "haruka", tc.ceiling)
		k, err2 := s.CountUpTo(ctx, "kenji", tc.ceiling)
		if h != tc.haruka || k != tc.kenji || err1 != nil || err2 != nil {
			t.Errorf("%v: CountUpTo haruka %d, %v, kenji %d, %v; want %d and %d", tc.ceiling, h, err1, k, err2, tc.haruka, tc.kenji)
		}
		if ps, err := s.PeopleWith(ctx, PeopleQuery{MaxSensitivity: tc.ceiling, Limit: 10}); err != nil || fmt.Sprint(ps) != tc.people {
			t.Errorf("%v: PeopleWith = %v, %v; want %s", tc.ceiling, ps, err, tc.people)
		}
	}
	if r, err := s.Check(ctx); err != nil || len(r.Problems) != 0 {
		t.Fatalf("after migrating: check: %v, %v", r.Problems, err)
	}
}

// TestBM25OnlyThePersonsRows: BM25 returns only the asking person's episodes,
// whether they hold most of the store (matched without their token) or few
// (matched with it).
func TestBM25OnlyThePersonsRows(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "p.db"), Options{})
	if _, err := s.Add(ctx, []episode.Episode{
		ep("many", "ラーメン食べた", "", day), ep("many", "ラーメン屋", "", day), ep("many", "味噌ラーメン", "", day),
		ep("few", "ラーメンが好き", "", day),
	}); err != nil {
		t.Fatal(err)
	}
	for user, want := range map[string]int{"many": 3, "few": 1, "nobody": 0} {
		hits, err := s.BM25(ctx, user, []string{"ラーメン"}, 10, episode.SearchFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != want {
			t.Fatalf("BM25 for %s: %d hits, want %d", user, len(hits), want)
		}
		for _, h := range hits {
			if e, err := s.Get(ctx, h.ID); err != nil || e.User != user {
				t.Fatalf("BM25 for %s returned episode %d of %q (%v)", user, h.ID, e.User, err)
			}
		}
	}
}

// TestSQLiteCountsNoMemory: opening a store turns SQLite's memory statistics
// off, whose process-wide mutex made concurrent queries run one at a time.
func TestSQLiteCountsNoMemory(t *testing.T) {
	s := newStore(t)
	if _, err := s.Add(ctx, []episode.Episode{{User: "haruka", UserText: "今日は鎌倉へ行った", ReplyText: "いいね", OccurredAt: day}}); err != nil {
		t.Fatal(err)
	}
	if sqliteCountsMemory() {
		t.Fatal("SQLite still keeps memory statistics after a store was opened")
	}
}

// TestHolds: a term counts as held only when one of the person's own
// episodes holds it, in either text, whatever its date.
func TestHolds(t *testing.T) {
	s := newStore(t)
	old := day.AddDate(-5, 0, 0)
	if _, err := s.Add(ctx, []episode.Episode{
		ep("haruka", "I met Caroline at the library", "How was it?", day),
		ep("haruka", "Barcelona was sunny", "Lucky you", old),
		ep("kenta", "Melanie paints sunsets", "Beautiful", day),
	}); err != nil {
		t.Fatal(err)
	}
	terms := []string{"carolin", "barcelona", "melani", "librari", "unknown", `"quote`}
	cases := map[string][]bool{
		"haruka": {true, true, false, true, false, false},
		"kenta":  {false, false, true, false, false, false},
		"nobody": {false, false, false, false, false, false},
	}
	for user, want := range cases {
		got, err := s.Holds(ctx, user, terms)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Holds(%s, %q) = %v, want %v", user, terms, got, want)
		}
	}
}

// TestAdjacent: an episode's neighbours are the person's episodes just before
// and after it in time, ties broken by id, other people's left out.
func TestAdjacent(t *testing.T) {
	s := newStore(t)
	ids, err := s.Add(ctx, []episode.Episode{
		ep("haruka", "a", "", day),                    // 0
		ep("kenta", "k1", "", day.Add(time.Minute)),   // 1: someone else's, between
		ep("haruka", "b", "", day.Add(2*time.Minute)), // 2
		ep("haruka", "c", "", day.Add(2*time.Minute)), // 3: same time as b
		ep("haruka", "d", "", day.Add(-time.Hour)),    // 4: stored last, earliest
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Adjacent(ctx, "haruka", []int64{ids[0], ids[2], ids[3], ids[4], ids[1], 999})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int64{{ids[4], ids[2]}, {ids[0], ids[3]}, {ids[2], 0}, {0, ids[0]}, {0, 0}, {0, 0}}
	if !slices.Equal(got, want) {
		t.Fatalf("Adjacent = %v, want %v (ids %v)", got, want, ids)
	}
}

// TestWritersInLine: a writer waits for the one before it without a
// transaction of its own, gives up when its context does, and then writes
// nothing; the next writer goes through.
func TestWritersInLine(t *testing.T) {
	s := newStore(t)
	tx, release, err := s.beginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := s.Add(short, []episode.Episode{ep("a", "待つ", "", day)}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Add while another writer holds the line: %v, want the context's deadline", err)
	}
	tx.Rollback()
	release()
	release() // a second call does nothing
	if _, err := s.Add(ctx, []episode.Episode{ep("a", "通る", "", day)}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Count(ctx, "a"); n != 1 {
		t.Errorf("%d episodes, want only the one added after the line cleared", n)
	}
}

// TestAddsShareACommit: Adds that wait for the write lock together are
// written in one transaction, each gets its own ids, and one that fails in
// that transaction fails alone: the others are written again without it.
func TestAddsShareACommit(t *testing.T) {
	s := newStore(t)
	var mu sync.Mutex
	var groups []int
	testHookApply = func(batch []episode.Episode, group int) error {
		mu.Lock()
		defer mu.Unlock()
		groups = append(groups, group)
		if batch[0].UserText == "壊れた" {
			return errors.New("a write that fails")
		}
		return nil
	}
	t.Cleanup(func() { testHookApply = nil })
	tx, release, err := s.beginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"一つ目", "二つ目", "壊れた", "四つ目"}
	ids, errs := make([][]int64, len(texts)), make([]error, len(texts))
	var wg sync.WaitGroup
	for i, text := range texts {
		wg.Go(func() {
			ids[i], errs[i] = s.Add(ctx, []episode.Episode{ep("a", text, "", day), ep("b", text+"も", "", day)})
		})
	}
	for {
		s.groupMu.Lock()
		n := len(s.queue)
		s.groupMu.Unlock()
		if n == len(texts) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	tx.Rollback()
	release()
	wg.Wait()
	// The group of four fails at the failing Add, wherever it stands in
	// the line; then each is written alone.
	if k := slices.Index(groups, 1); k < 1 || k > 4 || slices.ContainsFunc(groups[:k], func(n int) bool { return n != 4 }) ||
		!slices.Equal(groups[k:], []int{1, 1, 1, 1}) {
		t.Errorf("group sizes seen %v, want up to four 4s, then four 1s", groups)
	}
	for i, text := range texts {
		if text == "壊れた" {
			if errs[i] == nil || !strings.Contains(errs[i].Error(), "a write that fails") {
				t.Errorf("the failing Add: %v", errs[i])
			}
			continue
		}
		if errs[i] != nil || len(ids[i]) != 2 {
			t.Fatalf("Add %q: %v, %v", text, ids[i], errs[i])
		}
		for j, user := range []string{"a", "b"} {
			e, err := s.Get(ctx, ids[i][j])
			if err != nil || e.User != user || e.UserText != text+strings.Repeat("も", j) {
				t.Errorf("Add %q, episode %d: %+v, %v", text, j, e, err)
			}
		}
	}
	for _, user := range []string{"a", "b"} {
		if n, _ := s.Count(ctx, user); n != 3 {
			t.Errorf("%s holds %d episodes, want 3", user, n)
		}
	}
	if r, err := s.Check(ctx); err != nil || len(r.Problems) > 0 {
		t.Errorf("Check: %v, %v", r.Problems, err)
	}
}
