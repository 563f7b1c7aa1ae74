//go:build cgo

package retriever_test

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
)

var (
	ctx = context.Background()
	now = time.Date(2025, 12, 21, 11, 0, 0, 0, time.UTC)
)

func newStore(t testing.TB, a tokenize.Analyzer) *sqlite.Store {
	t.Helper()
	h, err := embed.NewHash(embed.HashOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "omoide.db"), sqlite.Options{Embedder: h, Analyzer: a})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func add(t testing.TB, s *sqlite.Store, eps ...episode.Episode) []int64 {
	t.Helper()
	ids, err := s.Add(ctx, eps)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func ep(user, text, reply string, daysAgo int) episode.Episode {
	return episode.Episode{User: user, UserText: text, ReplyText: reply, OccurredAt: now.AddDate(0, 0, -daysAgo)}
}

func newRetriever(t testing.TB, s retriever.Store, o retriever.Options) *retriever.Retriever {
	t.Helper()
	r, err := retriever.New(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func seed(t testing.TB, s *sqlite.Store) []int64 {
	return add(t, s,
		ep("haruka", "駅前の新しいラーメン屋で味噌ラーメンを食べたよ", "いいね！濃厚だった？", 40),
		ep("haruka", "膝が痛くて今日のジョギングは休んだ", "無理しないでね。病院には行った？", 30),
		ep("haruka", "姉と週末に買い物に行く予定", "楽しんできてね！", 20),
		ep("kenta", "息子とキャンプでラーメンを作った", "外で食べるラーメンは格別ですね", 10),
		// Someone else's memory, on other topics: FTS5's IDF is over the
		// whole index, and in a four-episode index a word two episodes hold
		// (ラーメン) has an IDF of zero, as in no real store.
		ep("mei", "新しい自転車を買った", "どこまで走ったの？", 5),
		ep("mei", "図書館で小説を借りた", "どんな話？", 4),
		ep("mei", "雨で洗濯物が乾かない", "部屋干しだね", 3),
	)
}

func TestRetrieveFindsThePastExchange(t *testing.T) {
	s := newStore(t, nil)
	ids := seed(t, s)
	r := newRetriever(t, s, retriever.DefaultOptions())
	res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "この前のラーメン屋、また行きたいな", Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Episode.ID != ids[0] {
		t.Fatalf("top hit = %+v, want the ramen episode %d", res.Hits, ids[0])
	}
	h := res.Hits[0]
	if h.Relevance.String() != "high" || !strings.HasPrefix(h.Reason, "relevance model: p=") || !strings.Contains(h.Reason, "heuristic rerank: score=") || h.RRFNorm != 1 {
		t.Fatalf("top hit parts: %+v", h)
	}
	tr := res.Trace
	if tr.BM25Hits[0] == 0 || tr.KNNHits[0] == 0 || len(tr.Queries) != 1 || tr.Total <= 0 || tr.Total < tr.Rerank || tr.Total < tr.KNN {
		t.Fatalf("trace = %+v", res.Trace)
	}
	for _, h := range res.Hits {
		if h.Episode.User != "haruka" {
			t.Fatalf("returned another person's episode: %+v", h.Episode)
		}
	}
}

func TestRetrieveEdgeInputs(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	r := newRetriever(t, s, retriever.DefaultOptions())
	for _, tt := range []struct {
		name, user, text string
		wantErr          bool
	}{
		{"empty", "haruka", "", false},
		{"whitespace incl. ideographic space", "haruka", " \t\u3000\n", false},
		{"unknown user", "nobody", "ラーメン", false},
		{"invalid utf-8", "haruka", "ラーメン\xff", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Retrieve(ctx, retriever.Request{User: tt.user, Text: tt.text, Now: now})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if len(res.Hits) != 0 {
				t.Fatalf("hits = %+v, want none", res.Hits)
			}
		})
	}
}

func TestRetrieveHugeMessage(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	r := newRetriever(t, s, retriever.DefaultOptions())
	huge := strings.Repeat("ラーメンの話をしよう。", 1<<20/len("ラーメンの話をしよう。"))
	res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: huge, Recent: []retriever.Message{}, Now: now, WithCandidates: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Candidates, func(h retriever.Hit) bool { return strings.Contains(h.Episode.UserText, "ラーメン") }) {
		t.Fatalf("a 1 MB message about ramen found nothing: %+v", res.Candidates)
	}
	// The BM25 query is clipped to MaxQueryChars characters and MaxQueryTerms terms.
	if n := strings.Count(res.Trace.BM25Match[0], `"`) / 2; n > retriever.DefaultMaxQueryTerms {
		t.Fatalf("BM25 query has %d terms", n)
	}
}

func TestRetrieveContext(t *testing.T) {
	s := newStore(t, tokenize.Raw())
	seed(t, s)
	r := newRetriever(t, s, retriever.ReferenceOptions())

	// nil Recent: the last 3 stored episodes of the person form the context.
	res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "元気？", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := "User: 駅前の新しいラーメン屋で味噌ラーメンを食べたよ\nPersona: いいね！濃厚だった？\n" +
		"User: 膝が痛くて今日のジョギングは休んだ\nPersona: 無理しないでね。病院には行った？\n" +
		"User: 姉と週末に買い物に行く予定\nPersona: 楽しんできてね！\n---\n元気？"
	if len(res.Trace.Queries) != 2 || res.Trace.Queries[1] != want {
		t.Fatalf("Q2 = %q\nwant %q", res.Trace.Queries, want)
	}

	// The last 6 messages are taken, then the empty ones (" ", "\u3000")
	// dropped; "persona" is the assistant; other roles are labelled by
	// their name ("Message" when empty), as the original does. The default
	// takes the same window and leaves the other roles out.
	var msgs []retriever.Message
	for i := range 8 {
		msgs = append(msgs, retriever.Message{Role: []string{"user", "persona"}[i%2], Content: " m\n" + string(rune('0'+i)) + " "})
	}
	msgs = append(msgs, retriever.Message{Role: "system", Content: "rule"}, retriever.Message{Content: "no role"},
		retriever.Message{Role: "user", Content: "\u3000"})
	def := newRetriever(t, s, retriever.DefaultOptions())
	for _, tt := range []struct {
		r    *retriever.Retriever
		want string
	}{
		{r, "Persona: m 5\nUser: m 6\nPersona: m 7\nsystem: rule\nMessage: no role\n---\nx"},
		{def, "Persona: m 5\nUser: m 6\nPersona: m 7\n---\nx"},
	} {
		res, err := tt.r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "x", Recent: msgs, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Trace.Queries) != 2 || res.Trace.Queries[1] != tt.want {
			t.Errorf("Q2 = %q\nwant %q", res.Trace.Queries, tt.want)
		}
	}

	// An empty, non-nil Recent means no context: one query.
	res, _ = r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "x", Recent: []retriever.Message{}, Now: now})
	if len(res.Trace.Queries) != 1 {
		t.Fatalf("queries = %q", res.Trace.Queries)
	}
}

// TestContextFromStore: without Recent, the context is the person's last
// exchanges as the original takes them from its store: episodes of kind
// Episode, searchable state and sensitivity within the limit (the reference
// admits secret ones, the default normal ones only), with a reply (an
// unanswered notification is no exchange), texts trimmed, a desktop_watch
// episode one observation of the assistant's.
func TestContextFromStore(t *testing.T) {
	s := newStore(t, tokenize.Raw())
	at := func(e episode.Episode, f func(*episode.Episode)) episode.Episode { f(&e); return e }
	add(t, s,
		ep("aki", "古い話", "うん", 9),
		at(ep("aki", "事実", "fact", 8), func(e *episode.Episode) { e.Kind = episode.KindFact }),
		at(ep("aki", "片付けた話", "archived", 7), func(e *episode.Episode) { e.State = episode.StateArchived }),
		at(ep("aki", "秘密の話", "内緒ね", 6), func(e *episode.Episode) { e.Sensitivity = episode.SensitivitySecret }),
		at(ep("aki", "# desktop_watch", "  作業中みたい ", 5), func(e *episode.Episode) { e.Source = retriever.DesktopWatchSource }),
		at(ep("aki", "明日は歯医者の予約です", "", 4), func(e *episode.Episode) { e.Source = "notification" }),
		ep("aki", "\u3000 最近どう？ ", "元気だよ", 3),
	)
	noGap := retriever.DefaultOptions()
	noGap.Context.SessionGap = 0
	// The default lets only the exchanges of the conversation going on (within
	// its SessionGap) stand in: minutes after the last one, that one; days
	// after it, none.
	lastAt := now.AddDate(0, 0, -3)
	for _, tt := range []struct {
		name string
		o    retriever.Options
		now  time.Time
		want string // "" for no Q2
	}{
		{"reference", retriever.ReferenceOptions(), now, "User: 秘密の話\nPersona: 内緒ね\n" +
			"Persona: （観測メモ）デスクトップを確認 独り言: 作業中みたい\nUser: 最近どう？\nPersona: 元気だよ\n---\n歯医者どうだった"},
		{"default without a session gap", noGap, now, "User: 古い話\nPersona: うん\n" +
			"Persona: （観測メモ）デスクトップを確認 独り言: 作業中みたい\nUser: 最近どう？\nPersona: 元気だよ\n---\n歯医者どうだった"},
		{"default, minutes later", retriever.DefaultOptions(), lastAt.Add(10 * time.Minute), "User: 最近どう？\nPersona: 元気だよ\n---\n歯医者どうだった"},
		{"default, days later", retriever.DefaultOptions(), now, ""},
	} {
		res, err := newRetriever(t, s, tt.o).Retrieve(ctx, retriever.Request{User: "aki", Text: "歯医者どうだった", Now: tt.now})
		if err != nil {
			t.Fatal(err)
		}
		if tt.want == "" && len(res.Trace.Queries) != 1 || tt.want != "" && (len(res.Trace.Queries) != 2 || res.Trace.Queries[1] != tt.want) {
			t.Errorf("%s: queries = %q\nwant Q2 %q", tt.name, res.Trace.Queries, tt.want)
		}
	}
}

// The reference gate can never say no (defect 2): the top candidate has
// rrf_norm 1, so an unrelated message still injects something.
func TestReferenceAlwaysInjects(t *testing.T) {
	s := newStore(t, tokenize.Raw())
	seed(t, s)
	r := newRetriever(t, s, retriever.ReferenceOptions())
	res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "量子コンピュータって何？", Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Score < 0.55 {
		t.Fatalf("reference did not inject for an unrelated message: %+v", res.Hits)
	}
}

// TestRetrieveAgeFilter: Filter.MaxAgeDays (365 in the reference) hides
// older episodes; the default has no cutoff.
func TestRetrieveAgeFilter(t *testing.T) {
	s := newStore(t, nil)
	add(t, s, ep("u", "ラーメン食べた", "", 400), ep("u", "チャーハン食べた", "", 364))
	for _, tt := range []struct {
		maxAge int
		want   []string
	}{
		{365, []string{"チャーハン食べた"}},
		{0, []string{"チャーハン食べた", "ラーメン食べた"}},
	} {
		o := retriever.DefaultOptions()
		o.Filter.MaxAgeDays = tt.maxAge
		res, err := newRetriever(t, s, o).Retrieve(ctx, retriever.Request{User: "u", Text: "ラーメン食べた", Recent: []retriever.Message{}, Now: now, WithCandidates: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := sortedTexts(res.Candidates, func(e episode.Episode) string { return e.UserText }); !slices.Equal(got, tt.want) {
			t.Errorf("MaxAgeDays %d: candidates %q, want %q", tt.maxAge, got, tt.want)
		}
	}
}

// sortedTexts returns text of each hit's episode, sorted.
func sortedTexts(hits []retriever.Hit, text func(episode.Episode) string) []string {
	var out []string
	for _, h := range hits {
		out = append(out, text(h.Episode))
	}
	slices.Sort(out)
	return out
}

// TestOldMemories: with no age cutoff, an episode from a year and a half ago
// is found by its own words, ranking below an equally matching recent one;
// by 去年の夏 it comes first, and an episode two years old by 一昨年.
func TestOldMemories(t *testing.T) {
	s := newStore(t, nil)
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 20, 0, 0, 0, tokyo) }
	ids := add(t, s,
		episode.Episode{User: "u", UserText: "去年は友達と高尾山に山登りに行ったよ", ReplyText: "景色はどうだった？", OccurredAt: day(2024, 7, 20)},
		episode.Episode{User: "u", UserText: "今月は兄と高尾山に山登りに行ったよ", ReplyText: "紅葉きれいだった？", OccurredAt: day(2025, 12, 6)},
		episode.Episode{User: "u", UserText: "家族で沖縄旅行、海がきれいだった", ReplyText: "いいなあ、また行きたいね", OccurredAt: day(2023, 8, 12)},
		episode.Episode{User: "u", UserText: "駅前のカフェで勉強した", ReplyText: "はかどった？", OccurredAt: day(2025, 12, 15)},
	)
	old, recent, okinawa := ids[0], ids[1], ids[2]
	r := newRetriever(t, s, retriever.DefaultOptions())
	ask := func(text string) []int64 {
		t.Helper()
		res, err := r.Retrieve(ctx, retriever.Request{User: "u", Text: text, Recent: []retriever.Message{}, Now: now, Location: tokyo})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, h := range res.Hits {
			got = append(got, h.Episode.ID)
		}
		return got
	}
	if got := ask("高尾山に山登り、楽しかったな"); len(got) < 2 || got[0] != recent || !slices.Contains(got, old) {
		t.Errorf("by its words: hits %v, want %d (recent) first and %d (18 months old) too", got, recent, old)
	}
	if got := ask("去年の夏の山登り、覚えてる？"); len(got) == 0 || got[0] != old {
		t.Errorf("去年の夏: hits %v, want %d first", got, old)
	}
	if got := ask("一昨年の沖縄旅行の話"); len(got) == 0 || got[0] != okinawa {
		t.Errorf("一昨年: hits %v, want %d first", got, okinawa)
	}
}

// TestUntilToday: the reference's day window ends at today's UTC day, so an
// episode dated tomorrow is not searched (today's, late in the day, is); the
// default searches it.
func TestUntilToday(t *testing.T) {
	s := newStore(t, tokenize.Raw())
	late := time.Date(now.Year(), now.Month(), now.Day(), 23, 59, 0, 0, time.UTC)
	add(t, s, episode.Episode{User: "u", UserText: "ラーメン 食べた", ReplyText: "明日", OccurredAt: late.Add(time.Minute)},
		episode.Episode{User: "u", UserText: "ラーメン 食べた", ReplyText: "今日", OccurredAt: late})
	for _, tt := range []struct {
		o    retriever.Options
		want []string
	}{
		{retriever.ReferenceOptions(), []string{"今日"}},
		{retriever.DefaultOptions(), []string{"今日", "明日"}},
	} {
		res, err := newRetriever(t, s, tt.o).Retrieve(ctx, retriever.Request{User: "u", Text: "ラーメン", Recent: []retriever.Message{}, Now: now, WithCandidates: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := sortedTexts(res.Candidates, func(e episode.Episode) string { return e.ReplyText }); !slices.Equal(got, tt.want) {
			t.Errorf("UntilToday %v: candidates %q, want %q", tt.o.Filter.UntilToday, got, tt.want)
		}
	}
}

// TestNewRejectsBadOptions: New names the first field that is negative, or
// unset where it cannot be off, and refuses a retriever that searches nothing.
func TestNewRejectsBadOptions(t *testing.T) {
	s := newStore(t, nil)
	tests := []struct {
		name string
		set  func(o *retriever.Options)
		want string // in the error
	}{
		{"negative K", func(o *retriever.Options) { o.Vector.K = -1 }, "Vector.K"},
		{"negative clip", func(o *retriever.Options) { o.BM25.MaxChars = -1 }, "BM25.MaxChars"},
		{"negative age", func(o *retriever.Options) { o.Filter.MaxAgeDays = -3 }, "Filter.MaxAgeDays"},
		{"negative weight", func(o *retriever.Options) { o.Rank.Fusion.LexicalKNNWeight = -1 }, "Rank.Fusion.LexicalKNNWeight"},
		{"negative gap", func(o *retriever.Options) { o.Rank.Neighbors.Gap = -time.Hour }, "Rank.Neighbors.Gap"},
		{"no RRF constant", func(o *retriever.Options) { o.Rank.Fusion.K = 0 }, "Rank.Fusion.K"},
		{"no n-gram size", func(o *retriever.Options) { o.Rank.Ngrams.Size = 0 }, "Rank.Ngrams.Size"},
		{"n-grams too long", func(o *retriever.Options) { o.Rank.Ngrams.Size = 4 }, "Rank.Ngrams.Size"},
		{"no results", func(o *retriever.Options) { o.Rank.Select.MaxResults = 0 }, "Rank.Select.MaxResults"},
		{"no arm", func(o *retriever.Options) { o.Vector.K, o.BM25.K = 0, 0 }, "nothing would be searched"},
	}
	for _, tt := range tests {
		o := retriever.DefaultOptions()
		tt.set(&o)
		if _, err := retriever.New(s, o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one naming %s", tt.name, err, tt.want)
		}
	}
}

// TestZeroLimitsLimitNothing: under the zero rule a zero clip or term limit
// of the BM25 query limits nothing (it used to turn BM25 off), so BM25 alone
// still finds the episode, with every term of a long message.
func TestZeroLimitsLimitNothing(t *testing.T) {
	s := newStore(t, nil)
	add(t, s, ep("haruka", "昨日は駅前の新しいラーメン屋で味噌ラーメンを食べたよ", "いいね", 3),
		ep("haruka", "週末は膝が痛くて走れなかった", "無理しないでね", 2))
	text := strings.Repeat("今日はとても良い天気で、公園を散歩して、図書館で本を借りて、喫茶店で珈琲を飲んだ。", 8) + "駅前のラーメン屋の味噌ラーメン、また食べたい"
	o := retriever.DefaultOptions()
	o.Vector.K = 0
	o.BM25.MaxChars, o.BM25.MaxTerms, o.BM25.MaxRows, o.BM25.MaxPostings, o.BM25.MaxTermShare = 0, 0, 0, 0, 0
	res, err := newRetriever(t, s, o).Retrieve(ctx, retriever.Request{User: "haruka", Text: text, Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trace.BM25Match) != 1 || !strings.Contains(res.Trace.BM25Match[0], "ラーメン") || strings.Count(res.Trace.BM25Match[0], `"`)/2 <= retriever.DefaultMaxQueryTerms {
		t.Errorf("BM25 query %q: want every term of the message, ラーメン at its end included", res.Trace.BM25Match)
	}
	if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Episode.UserText, "ラーメン") {
		t.Errorf("hits %+v: want the ramen episode first", res.Hits)
	}
}

type failingEmbedder struct{ embed.Embedder }

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, context.DeadlineExceeded
}

type storeWithEmbedder struct {
	*sqlite.Store
	e embed.Embedder
}

func (s storeWithEmbedder) Embedder() embed.Embedder { return s.e }

// The reference has no fallback (defect 5): an embedding failure fails the retrieval.
func TestEmbedFailureIsAnError(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	r := newRetriever(t, storeWithEmbedder{s, failingEmbedder{s.Embedder()}}, retriever.ReferenceOptions())
	if _, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "ラーメン", Now: now}); err == nil {
		t.Fatal("no error when the embedder fails")
	}
}

func TestRetrieveWithCandidates(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	r := newRetriever(t, s, retriever.DefaultOptions())
	req := retriever.Request{User: "haruka", Text: "ラーメン", Recent: []retriever.Message{}, Now: now}
	res, err := r.Retrieve(ctx, req)
	if err != nil || res.Candidates != nil {
		t.Fatalf("candidates without asking: %v, %v", res.Candidates, err)
	}
	req.WithCandidates = true
	res, err = r.Retrieve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != res.Trace.Fetched || len(res.Candidates) < len(res.Hits) {
		t.Fatalf("%d candidates, %d fetched, %d hits", len(res.Candidates), res.Trace.Fetched, len(res.Hits))
	}
	for i := 1; i < len(res.Candidates); i++ {
		if res.Candidates[i].Score > res.Candidates[i-1].Score {
			t.Fatalf("candidates not in rerank order at %d", i)
		}
	}
	if res.Candidates[0].Episode.ID != res.Hits[0].Episode.ID {
		t.Fatal("top candidate is not the top hit")
	}
}

func TestExcludeRecent(t *testing.T) {
	s := newStore(t, nil)
	ids := seed(t, s)
	for _, tt := range []struct {
		name    string
		exclude bool
		recent  []retriever.Message
		echoes  int
	}{
		// nil Recent: the last three stored episodes (ids 1..3 of haruka) are the context.
		{"stored context excluded", true, nil, 1},
		{"stored context kept by the reference", false, nil, 0},
		// The caller's messages: an episode whose user text is one of them is an echo.
		{"caller context excluded by text", true, []retriever.Message{{Role: "user", Content: " 駅前の新しいラーメン屋で味噌ラーメンを食べたよ\n"}}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := retriever.DefaultOptions()
			o.Context.ExcludeRecent = tt.exclude
			o.Context.SessionGap = 0 // the seeded exchanges are weeks old
			r := newRetriever(t, s, o)
			res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "ラーメン屋の味噌ラーメン", Recent: tt.recent, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, h := range res.Hits {
				found = found || h.Episode.ID == ids[0]
			}
			if found == tt.exclude || res.Trace.Echoes < tt.echoes {
				t.Fatalf("ramen episode returned = %v, echoes = %d (exclude %v)", found, res.Trace.Echoes, tt.exclude)
			}
		})
	}
}

func TestFallbackBM25WhenEmbedderFails(t *testing.T) {
	s := newStore(t, nil)
	ids := seed(t, s)
	o := retriever.DefaultOptions()
	r := newRetriever(t, storeWithEmbedder{s, failingEmbedder{s.Embedder()}}, o)
	res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "味噌ラーメン", Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatalf("degraded retrieval failed: %v", err)
	}
	if res.Trace.Degraded == "" || len(res.Hits) == 0 || res.Hits[0].Episode.ID != ids[0] {
		t.Fatalf("degraded = %q, hits = %+v", res.Trace.Degraded, res.Hits)
	}
	// Nothing can run: no BM25 terms (only punctuation) and no vectors.
	o.SkipSmallTalk = false // or "？！" would be skipped before any search
	r = newRetriever(t, storeWithEmbedder{s, failingEmbedder{s.Embedder()}}, o)
	if _, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "？！", Recent: []retriever.Message{}, Now: now}); err == nil {
		t.Fatal("no error when neither arm can run")
	}
}

type slowEmbedder struct{ embed.Embedder }

func (s slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestEmbedTimeoutDegrades(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	o := retriever.DefaultOptions()
	o.Vector.Timeout = 20 * time.Millisecond
	r := newRetriever(t, storeWithEmbedder{s, slowEmbedder{s.Embedder()}}, o)
	res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "味噌ラーメン", Recent: []retriever.Message{}, Now: now})
	if err != nil || !strings.Contains(res.Trace.Degraded, "deadline") {
		t.Fatalf("err = %v, degraded = %q", err, res.Trace.Degraded)
	}
}

func TestMessageFirstBM25KeepsTheMessage(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	long := []retriever.Message{{Role: "user", Content: strings.Repeat("今日は仕事がとても忙しかった。", 30)}}
	for _, first := range []bool{false, true} {
		o := retriever.DefaultOptions()
		o.BM25.MessageFirst = first
		r := newRetriever(t, s, o)
		res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "ジョギング", Recent: long, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(res.Trace.BM25Match[1], "ジョギング"); got != first {
			t.Fatalf("MessageFirstBM25=%v: Q2's BM25 query %q contains the message = %v", first, res.Trace.BM25Match[1], got)
		}
	}
}

// TestLocationDayWindow: the MaxAgeDays window starts at a midnight in the
// person's time zone, the request's when it names one, else the options'.
func TestLocationDayWindow(t *testing.T) {
	s := newStore(t, nil)
	tokyo := time.FixedZone("JST", 9*3600)
	// now = 2025-12-21 00:30 JST = 2025-12-20 15:30 UTC. The 1-day window starts at
	// 2025-12-20 00:00 JST (15:00 UTC on the 19th) in Tokyo, at 2025-12-19 00:00 UTC in UTC.
	jnow := time.Date(2025, 12, 21, 0, 30, 0, 0, tokyo)
	add(t, s, episode.Episode{User: "u", UserText: "ラーメン食べた", OccurredAt: time.Date(2025, 12, 19, 10, 0, 0, 0, time.UTC)})
	for _, tt := range []struct {
		opts, req *time.Location
		want      int
	}{{nil, nil, 1}, {tokyo, nil, 0}, {nil, tokyo, 0}, {tokyo, time.UTC, 1}} {
		o := retriever.DefaultOptions()
		o.Filter.MaxAgeDays = 1
		o.Location = tt.opts
		r := newRetriever(t, s, o)
		res, err := r.Retrieve(ctx, retriever.Request{User: "u", Text: "ラーメン食べた", Recent: []retriever.Message{}, Now: jnow, Location: tt.req})
		if err != nil {
			t.Fatal(err)
		}
		if res.Trace.Fetched != tt.want {
			t.Fatalf("options %v, request %v: %d candidates, want %d", tt.opts, tt.req, res.Trace.Fetched, tt.want)
		}
	}
}

// TestLocationOfTimeExpressions: "昨日" is yesterday where the person lives.
// At 00:30 in Tokyo on the 21st it is still the 20th in UTC, so yesterday is
// the 20th in Tokyo and the 19th in UTC.
func TestLocationOfTimeExpressions(t *testing.T) {
	s := newStore(t, nil)
	tokyo := time.FixedZone("JST", 9*3600)
	jnow := time.Date(2025, 12, 21, 0, 30, 0, 0, tokyo)
	add(t, s,
		episode.Episode{User: "u", UserText: "映画を観に行った", ExternalID: "tokyo-20th", OccurredAt: time.Date(2025, 12, 20, 12, 0, 0, 0, tokyo)},
		episode.Episode{User: "u", UserText: "本屋に寄った", ExternalID: "utc-19th", OccurredAt: time.Date(2025, 12, 19, 12, 0, 0, 0, time.UTC)},
	)
	for _, tt := range []struct {
		opts, req *time.Location
		want      string
	}{{nil, nil, "utc-19th"}, {tokyo, nil, "tokyo-20th"}, {nil, tokyo, "tokyo-20th"}, {tokyo, time.UTC, "utc-19th"}} {
		o := retriever.DefaultOptions()
		o.Location = tt.opts
		r := newRetriever(t, s, o)
		res, err := r.Retrieve(ctx, retriever.Request{User: "u", Text: "昨日何話したっけ", Recent: []retriever.Message{}, Now: jnow, Location: tt.req})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 || res.Hits[0].Episode.ExternalID != tt.want {
			t.Fatalf("options %v, request %v: hits %+v (window %s), want only %s", tt.opts, tt.req, res.Hits, res.Trace.Window, tt.want)
		}
	}
}

func TestGateCanSayNo(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	o := retriever.DefaultOptions()
	o.Rank.Gate = rerank.Gate{MinCoverage: 0.4}
	r := newRetriever(t, s, o)
	res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "量子コンピュータって何？", Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || res.Trace.Gated == 0 {
		t.Fatalf("gate let an unrelated message through: %+v", res.Hits)
	}
	res, err = r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "駅前の新しいラーメン屋の味噌ラーメン", Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Coverage < 0.4 {
		t.Fatalf("gate blocked a relevant memory: %+v", res.Hits)
	}
}

// TestGateAdmitsTheTimeWindow: a message that names a time is answered by
// the episode of that time though they share no word (their only common
// term, てる, is light); without time-aware queries the coverage gate
// declines it. This is the rules' gate (rerank.Gate admits InWindow): the
// relevance model reads InWindow as one feature among others and declines
// an episode that covers nothing of the message (p 0.046 here; the demo's
// misaki:q09 likewise injects nothing).
func TestGateAdmitsTheTimeWindow(t *testing.T) {
	s := newStore(t, nil)
	ids := add(t, s,
		ep("misaki", "ゼミのレポート、年内締切が３つ重なってる", "3つ重なるのはきついね", 4),
		ep("misaki", "今日は札幌で初雪だった", "寒くなったね", 20),
		ep("misaki", "ピアノの発表会で弾く曲を決めた", "楽しみ！", 40),
	)
	for _, timeAware := range []bool{true, false} {
		o := retriever.DefaultOptions()
		o.Rank.Inject = rerank.Inject{}
		// the gate of the default preset before the relevance model
		o.Rank.Gate = rerank.Gate{MinCoverage: 0.29, Depth: rerank.DefaultGateDepth}
		o.TimeAware = timeAware
		res, err := newRetriever(t, s, o).Retrieve(ctx, retriever.Request{User: "misaki", Text: "4日前に話した課題、あと何個残ってるんだっけ", Recent: []retriever.Message{}, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		injected := len(res.Hits) > 0 && res.Hits[0].Episode.ID == ids[0] && res.Hits[0].InWindow
		declined := len(res.Hits) == 0 && strings.HasPrefix(res.Trace.Declined, "no candidate")
		if timeAware && !injected || !timeAware && !declined { // without the window, nothing else admits it
			t.Errorf("TimeAware=%v: hits %+v, declined %q", timeAware, res.Hits, res.Trace.Declined)
		}
	}
}

// TestGateDeclinesUnknownNames: a question about someone the person's
// memory never held injects nothing, though its other words match; the same
// question asked of the memory that holds the name still injects. So it is
// with the relevance model (the default, where the gate declines before the
// model weighs: a rule that holds on suites the model never saw) and with the
// rules' gate; without
// UnknownNames the rules' coverage gate alone lets it through.
func TestGateDeclinesUnknownNames(t *testing.T) {
	s := newStore(t, tokenize.KagomeSnowball())
	add(t, s,
		ep("mel", "Caroline told me she is researching adoption agencies", "That is a big step for her", 9),
		ep("mel", "I went camping with the kids last weekend", "Sounds fun, where did you go?", 5),
		ep("jon", "I did some research on dance studios for my new business", "What did you find?", 8),
		ep("jon", "I went camping near the lake", "Nice, was it cold?", 4),
	)
	ask := func(o retriever.Options, user string) retriever.Result {
		t.Helper()
		res, err := newRetriever(t, s, o).Retrieve(ctx, retriever.Request{User: user, Text: "What did Caroline research?", Recent: []retriever.Message{}, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	rules := retriever.DefaultOptions()
	rules.Rank.Inject = rerank.Inject{}
	// the gate of the default preset before the relevance model
	rules.Rank.Gate = rerank.Gate{MinCoverage: 0.29, Depth: rerank.DefaultGateDepth, UnknownNames: true}
	for _, o := range []retriever.Options{retriever.DefaultOptions(), rules} {
		if res := ask(o, "jon"); len(res.Hits) != 0 || !slices.Equal(res.Trace.UnknownNames, []string{"carolin"}) || !strings.Contains(res.Trace.Declined, "holds no") {
			t.Errorf("model %v: jon, who never spoke of Caroline: hits %d, unknown names %q, declined %q", o.Rank.Inject.On(), len(res.Hits), res.Trace.UnknownNames, res.Trace.Declined)
		}
		if res := ask(o, "mel"); len(res.Hits) == 0 || res.Hits[0].Episode.User != "mel" || len(res.Trace.UnknownNames) != 0 {
			t.Errorf("model %v: mel, who did: hits %d, unknown names %q, declined %q", o.Rank.Inject.On(), len(res.Hits), res.Trace.UnknownNames, res.Trace.Declined)
		}
	}
	o := rules
	o.Rank.Gate.UnknownNames = false
	if res := ask(o, "jon"); len(res.Hits) == 0 || res.Trace.UnknownNames != nil {
		t.Errorf("without UnknownNames: hits %d, unknown names %q: the test no longer shows what the gate adds", len(res.Hits), res.Trace.UnknownNames)
	}
}

// TestRelevanceModelDecides: in the default preset the relevance model
// decides: hits carry their probability, the first is High, the trace the
// retrieval's probability; an unrelated message injects nothing and says
// why; the threshold is the knob.
func TestRelevanceModelDecides(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	o := retriever.DefaultOptions()
	if !o.Rank.Inject.On() {
		t.Fatal("the default preset has no relevance model")
	}
	r := newRetriever(t, s, o)
	ask := func(r *retriever.Retriever, text string) retriever.Result {
		t.Helper()
		res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: text, Recent: []retriever.Message{}, Now: now, WithCandidates: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := ask(r, "駅前の新しいラーメン屋の味噌ラーメン")
	if len(res.Hits) == 0 || res.Hits[0].Relevance != rerank.High || res.Trace.Probability < o.Rank.Inject.Threshold {
		t.Fatalf("hits %+v, probability %v: want a High first hit", res.Hits, res.Trace.Probability)
	}
	for _, h := range res.Hits {
		if h.Probability < o.Rank.Inject.Level || h.Probability >= 1 || !strings.HasPrefix(h.Reason, "relevance model: p=") {
			t.Errorf("hit %s: probability %v, reason %q", h.Episode.UserText, h.Probability, h.Reason)
		}
	}
	for i, c := range res.Candidates {
		if judged := i < o.Rank.Inject.Depth; judged != (c.Probability > 0) {
			t.Errorf("candidate %d: probability %v", i, c.Probability)
		}
	}
	res = ask(r, "量子コンピュータって何？")
	if len(res.Hits) != 0 || !strings.Contains(res.Trace.Declined, "relevance model") || res.Trace.Probability >= o.Rank.Inject.Threshold {
		t.Errorf("an unrelated message: hits %d, declined %q, probability %v", len(res.Hits), res.Trace.Declined, res.Trace.Probability)
	}
	o.Rank.Inject.Threshold = 1
	if res := ask(newRetriever(t, s, o), "駅前の新しいラーメン屋の味噌ラーメン"); len(res.Hits) != 0 {
		t.Errorf("threshold 1: %d hits", len(res.Hits))
	}
}

// rulesPickAll returns the default options deciding by rules, none set: the
// picks are the first candidates in rank order, for the tests of the ranking.
func rulesPickAll() retriever.Options {
	o := retriever.DefaultOptions()
	o.Rank.Inject = rerank.Inject{}
	return o
}

// TestNeighborShare: a candidate that is the person's exchange just after the
// best match rises to NeighborShare of its score; without the option it
// keeps its own.
func TestNeighborShare(t *testing.T) {
	s := newStore(t, nil)
	ids := add(t, s,
		ep("haruka", "来月、京都の嵐山へ紅葉を見に行く計画を立てている", "素敵！どの辺りを歩くの？", 12),
		ep("haruka", "竹林の小径を歩いて、渡月橋の近くで湯豆腐を食べたい", "いいコースだね", 12),
		ep("haruka", "最近ジムに通い始めた", "続くといいね", 9),
		ep("haruka", "新しいスニーカーを買った", "何色？", 6),
		ep("haruka", "雨で洗濯物が乾かない", "部屋干しだね", 3),
		ep("haruka", "今日は在宅勤務だった", "通勤がないと楽だね", 2),
		ep("haruka", "猫が膝の上で寝ている", "かわいい", 2),
		ep("haruka", "明日の会議の資料を作った", "おつかれさま", 1),
		ep("haruka", "夕飯はカレーにした", "いいね", 1),
	)
	req := retriever.Request{User: "haruka", Text: "嵐山の紅葉、見に行く計画どうなったっけ", Recent: []retriever.Message{}, Now: now, WithCandidates: true}
	rank := func(share float64) (retriever.Result, int) {
		t.Helper()
		o := rulesPickAll()
		o.Rank.Neighbors.Share = share
		res, err := newRetriever(t, s, o).Retrieve(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Candidates) < 3 || res.Candidates[0].Episode.ID != ids[0] {
			t.Fatalf("share %v: the plan is not the best match: %+v", share, res.Candidates)
		}
		return res, slices.IndexFunc(res.Candidates, func(h retriever.Hit) bool { return h.Episode.ID == ids[1] })
	}
	off, before := rank(0)
	on, after := rank(0.9)
	if off.Trace.Neighbors != 0 || on.Trace.Neighbors == 0 {
		t.Errorf("neighbours raised: %d without the option, %d with it", off.Trace.Neighbors, on.Trace.Neighbors)
	}
	if after != 1 || before <= 1 {
		t.Errorf("the next exchange ranks %d without the option and %d with it, want > 1 and 1", before, after)
	}
	if got, want := on.Candidates[1].Score, 0.9*on.Candidates[0].Score; math.Abs(got-want) > 1e-9 {
		t.Errorf("raised score %v, want 0.9 × %v", got, on.Candidates[0].Score)
	}
	if len(on.Hits) < 2 || on.Hits[1].Episode.ID != ids[1] || !strings.Contains(on.Hits[1].Reason, "raised") {
		t.Errorf("the raised exchange is not the second pick, or its reason does not say why: %+v", on.Hits)
	}
}

func TestSkipSmallTalk(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	r := newRetriever(t, s, retriever.DefaultOptions())
	for _, tt := range []struct {
		text string
		skip bool
	}{
		{"おはよう！", true},
		{"ありがとう〜😊", true},
		{"うんうん", true},
		{"おはよう、昨日のラーメン屋覚えてる？", false},
		{"味噌ラーメン", false},
	} {
		res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: tt.text, Recent: []retriever.Message{}, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Trace.Skipped == "small talk"; got != tt.skip {
			t.Errorf("%q: skipped = %v, want %v", tt.text, got, tt.skip)
		}
	}
}

func TestTimeWindows(t *testing.T) {
	s := newStore(t, nil)
	// now is Sunday 2025-12-21; last week is Mon 12-08 .. Sun 12-14.
	ids := add(t, s,
		ep("u", "駅前のラーメン屋で味噌ラーメン", "いいね", 10),   // Thu 12-11: last week
		ep("u", "駅前のラーメン屋で味噌ラーメン!", "いいね!", 40), // November
		ep("u", "職場の飲み会だった", "お疲れさま", 12),       // Tue 12-09: last week
		ep("u", "映画を観た", "どうだった？", 2),           // this week
	)
	r := newRetriever(t, s, retriever.DefaultOptions())
	res, err := r.Retrieve(ctx, retriever.Request{User: "u", Text: "先週何話したっけ？", Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, h := range res.Hits {
		got = append(got, h.Episode.ID)
	}
	if len(got) != 2 || got[0] != ids[0] || got[1] != ids[2] || res.Trace.Window == "" {
		t.Fatalf("time-only query returned %v (want last week's %d, %d newest first); window %q", got, ids[0], ids[2], res.Trace.Window)
	}
	// A topic with a time expression prefers the episode inside the window over its near-copy.
	res, err = r.Retrieve(ctx, retriever.Request{User: "u", Text: "先週の味噌ラーメンおいしかった", Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Episode.ID != ids[0] {
		t.Fatalf("top hit %+v, want last week's episode %d", res.Hits, ids[0])
	}
	o := retriever.DefaultOptions()
	o.TimeAware = false
	res, _ = newRetriever(t, s, o).Retrieve(ctx, retriever.Request{User: "u", Text: "先週何話したっけ？", Recent: []retriever.Message{}, Now: now})
	if res.Trace.Window != "" {
		t.Fatal("TimeAware off still read a window")
	}
}

// TestLangReachesTimeWindows: the plan words of a clause of Han alone are
// read in the request's Lang, else in the store analyzer's language
// (cjk2+ja: Japanese), else as Chinese: a Japanese person's 週末予定確認
// (checking the weekend's plans) names no window, read as Chinese it names
// this weekend.
func TestLangReachesTimeWindows(t *testing.T) {
	for _, tt := range []struct {
		analyzer tokenize.Analyzer
		lang     lang.Language
		window   bool
	}{
		{tokenize.CJK2(), lang.Other, true},
		{tokenize.CJK2(), lang.Chinese, true},
		{tokenize.CJK2(), lang.Japanese, false},
		{tokenize.CJK2For(lang.Japanese), lang.Other, false},
		{tokenize.CJK2For(lang.Japanese), lang.Chinese, true},
		{tokenize.Raw(), lang.Other, true},
		{tokenize.Raw(), lang.Japanese, false},
	} {
		s := newStore(t, tt.analyzer)
		add(t, s, ep("u", "週末は山に行った", "いいね", 1))
		r := newRetriever(t, s, retriever.DefaultOptions())
		res, err := r.Retrieve(ctx, retriever.Request{User: "u", Text: "週末予定確認", Recent: []retriever.Message{}, Now: now, Lang: tt.lang})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Trace.Window != ""; got != tt.window {
			t.Errorf("%s store, lang %q: window %q, want one: %v", tt.analyzer.Name(), tt.lang, res.Trace.Window, tt.window)
		}
	}
}

// commonTerms reports some terms as held by many episodes of a store of
// 100,000, mine of them the person's.
type commonTerms struct {
	*sqlite.Store
	common map[string]int
	mine   int
}

func (c commonTerms) DocFreq(ctx context.Context, terms []string) ([]int, int, error) {
	df, _, err := c.Store.DocFreq(ctx, terms)
	for i, t := range terms {
		if n, ok := c.common[t]; ok {
			df[i] = n
		}
	}
	return df, 100000, err
}

func (c commonTerms) Count(context.Context, string) (int, error) { return c.mine, nil }

// TestMaxMatchRowsDropsCommonTerms: a BM25 query keeps its rarest terms
// while their rows among the person's episodes fit MaxMatchRows (and a
// fortieth of the person's episodes, at least 250), their postings
// MaxPostings and each term's share of the store MaxTermShare, the rarest
// always; the zero MaxMatchRows keeps every term.
func TestMaxMatchRowsDropsCommonTerms(t *testing.T) {
	s := newStore(t, tokenize.Kagome())
	seed(t, s)
	df := map[string]int{"食べる": 40000, "ラーメン": 1500, "味噌": 400, "家": 90000}
	cases := []struct {
		text           string
		mine           int // the person's episodes of the 100,000
		rows, postings int
		share          float64
		want, not      []string
	}{
		// One person holds the whole store: rows are document frequencies.
		{"家で味噌ラーメンを食べたい", 100000, 2000, 0, 0, []string{"味噌", "ラーメン"}, []string{"家", "食べる"}},
		{"家で味噌ラーメンを食べたい", 100000, 1000, 0, 0, []string{"味噌"}, []string{"ラーメン", "家", "食べる"}},
		{"家で味噌ラーメンを食べたい", 100000, 0, 0, 0, []string{"家", "味噌", "ラーメン", "食べる"}, nil},
		{"家で食べる", 100000, 2000, 0, 0, []string{"食べる"}, []string{"家"}}, // every term common: the rarest stays
		// A person with 20% of the store matches 20% of each term's rows,
		// within a fortieth of their 20,000 episodes (500 rows) ...
		{"家で味噌ラーメンを食べたい", 20000, 2000, 0, 0, []string{"味噌", "ラーメン"}, []string{"家", "食べる"}},
		// ... one with 1% within 250 rows, the least budget: 食べる's 400 are too many ...
		{"家で味噌ラーメンを食べたい", 1000, 2000, 0, 0, []string{"味噌", "ラーメン"}, []string{"家", "食べる"}},
		// ... one with 0.1% has room for every term ...
		{"家で味噌ラーメンを食べたい", 100, 2000, 0, 0, []string{"家", "味噌", "ラーメン", "食べる"}, nil},
		// ... but reading the postings is bounded over the whole store ...
		{"家で味噌ラーメンを食べたい", 100, 2000, 2000, 0, []string{"味噌", "ラーメン"}, []string{"家", "食べる"}},
		// ... and words in more than a share of the store are left out.
		{"今日味噌ラーメンを食べたい", 100, 2000, 0, 0.5, []string{"味噌", "ラーメン", "食べる"}, []string{"今日"}},
	}
	for _, c := range cases {
		o := retriever.DefaultOptions()
		o.BM25.MaxRows, o.BM25.MaxPostings, o.BM25.MaxTermShare = c.rows, c.postings, c.share
		store := commonTerms{s, df, c.mine}
		res, err := newRetriever(t, store, o).Retrieve(ctx, retriever.Request{User: "haruka", Text: c.text, Recent: []retriever.Message{}, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Trace.BM25Match[0]
		for _, w := range c.want {
			if !strings.Contains(m, `"`+w+`"`) {
				t.Errorf("%+v: BM25 query %s lacks %s", c, m, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(m, `"`+w+`"`) {
				t.Errorf("%+v: BM25 query %s keeps the common %s", c, m, w)
			}
		}
	}
}

// TestNeighborFetch: the assistant asked in one exchange and the person
// answered in the next; a message about the answer finds only the answer,
// and NeighborFetch adds the question, though no search found it. A
// neighbour the filters keep out (too sensitive), or one from another
// conversation (further than NeighborGap), is never added.
func TestNeighborFetch(t *testing.T) {
	for _, tt := range []struct {
		name      string
		sensitive bool
		before    time.Duration // the question's time before the answer's
		added     bool
	}{
		{"the question just before", false, time.Minute, true},
		{"a sensitive question", true, time.Minute, false},
		{"the day before", false, 24 * time.Hour, false},
	} {
		s := newStore(t, nil)
		question := ep("haruka", "今日は朝から晴れていた", "好きなスポーツはありますか？", 3)
		if tt.sensitive {
			question.Sensitivity = episode.SensitivityPrivate
		}
		eps := []episode.Episode{question, ep("haruka", "ゴルフです。週末によく打ちっぱなしに行く", "いいですね", 3)}
		for i, w := range []string{"洗濯物", "カレー", "在宅勤務", "スニーカー", "会議の資料", "猫", "自転車", "小説"} {
			eps = append(eps, ep("haruka", w+"の話をした", "なるほど", 10+i))
		}
		eps[0].OccurredAt = eps[1].OccurredAt.Add(-tt.before)
		ids := add(t, s, eps...)
		req := retriever.Request{User: "haruka", Text: "ゴルフの打ちっぱなし、最近行けてないな", Recent: []retriever.Message{}, Now: now, WithCandidates: true}
		run := func(fetch int) retriever.Result {
			t.Helper()
			o := rulesPickAll()
			o.Vector.K = 0 // BM25 alone: the hash vectors of a small store would find every episode
			o.Rank.Neighbors.Fetch = fetch
			res, err := newRetriever(t, s, o).Retrieve(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Candidates) == 0 || res.Candidates[0].Episode.ID != ids[1] {
				t.Fatalf("%s, fetch %d: the answer is not the best match: %+v", tt.name, fetch, res.Candidates)
			}
			return res
		}
		has := func(res retriever.Result) bool {
			return slices.ContainsFunc(res.Candidates, func(h retriever.Hit) bool { return h.Episode.ID == ids[0] })
		}
		if off := run(0); has(off) || off.Trace.NeighborsAdded != 0 {
			t.Fatalf("%s: without NeighborFetch the question is a candidate (added %d)", tt.name, off.Trace.NeighborsAdded)
		}
		on := run(1)
		if !tt.added {
			if has(on) || on.Trace.NeighborsAdded != 0 {
				t.Errorf("%s: the question was added: %+v", tt.name, on.Candidates)
			}
			continue
		}
		if !has(on) || on.Trace.NeighborsAdded != 1 {
			t.Fatalf("%s: the question was not added (added %d): %+v", tt.name, on.Trace.NeighborsAdded, on.Candidates)
		}
		if got, want := on.Candidates[1].Score, 0.9*on.Candidates[0].Score; on.Candidates[1].Episode.ID != ids[0] || math.Abs(got-want) > 1e-9 {
			t.Errorf("second candidate %d at %v, want the question at 0.9 × %v", on.Candidates[1].Episode.ID, got, on.Candidates[0].Score)
		}
		if len(on.Hits) < 2 || on.Hits[1].Episode.ID != ids[0] || !strings.Contains(on.Hits[1].Reason, "raised") {
			t.Errorf("the question is not the second pick, or its reason does not say why: %+v", on.Hits)
		}
	}
}

// TestCoverageInTheScore: the episode holding most of the message's words
// comes first, with the highest coverage, its score is the sum of its
// weighted parts, coverage and proximity included, and its reason shows
// both.
func TestCoverageInTheScore(t *testing.T) {
	s := newStore(t, nil)
	ids := add(t, s,
		ep("haruka", "京都で抹茶のパフェを食べた", "おいしそう", 5),
		ep("haruka", "京都駅の近くで友達と会った", "いいね", 5),
		ep("haruka", "抹茶ラテが好き", "わかる", 5),
		ep("haruka", "雨で洗濯物が乾かない", "部屋干しだね", 3),
	)
	req := retriever.Request{User: "haruka", Text: "京都の抹茶パフェのお店、どこだっけ", Recent: []retriever.Message{}, Now: now, WithCandidates: true}
	res, err := newRetriever(t, s, retriever.DefaultOptions()).Retrieve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) < 3 || res.Candidates[0].Episode.ID != ids[0] {
		t.Fatalf("the parfait is not first: %+v", res.Candidates)
	}
	best := res.Candidates[0]
	for _, h := range res.Candidates[1:] {
		if h.Coverage >= best.Coverage {
			t.Errorf("episode %d covers %v, the best %v", h.Episode.ID, h.Coverage, best.Coverage)
		}
	}
	if got := retriever.DefaultOptions().Rank.Weights.Final(best.Parts); got != best.Score {
		t.Errorf("score %v, want its parts' %v", best.Score, got)
	}
	if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Reason, "cov=") || !strings.Contains(res.Hits[0].Reason, "prox=") {
		t.Errorf("the first pick's reason does not show its coverage and proximity: %+v", res.Hits)
	}
}

// TestProximity: of two episodes holding the same words, the one that holds
// the message's adjacent words next to each other and in order (梅雨の期間)
// has proximity 1, the other less, and it comes first.
func TestProximity(t *testing.T) {
	s := newStore(t, nil)
	ids := add(t, s,
		ep("haruka", "期間限定のパフェは梅雨が明けたら終わり", "残念", 5),
		ep("haruka", "梅雨の期間限定のパフェが終わった", "残念", 5),
		ep("haruka", "雨で洗濯物が乾かない", "部屋干しだね", 3),
	)
	req := retriever.Request{User: "haruka", Text: "梅雨の期間限定パフェって何だっけ", Recent: []retriever.Message{}, Now: now, WithCandidates: true}
	res, err := newRetriever(t, s, retriever.DefaultOptions()).Retrieve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]retriever.Hit{}
	for _, h := range res.Candidates {
		byID[h.Episode.ID] = h
	}
	apart, near := byID[ids[0]], byID[ids[1]]
	if apart.Coverage != near.Coverage || near.Proximity != 1 || apart.Proximity >= near.Proximity {
		t.Fatalf("coverage %v and %v, proximity apart %v and near %v: want equal coverage, proximity 1 only near", apart.Coverage, near.Coverage, apart.Proximity, near.Proximity)
	}
	if res.Candidates[0].Episode.ID != ids[1] {
		t.Errorf("the episode holding 梅雨の期間 is not first: %+v", res.Candidates)
	}
}

// TestSynonyms: an episode that spells the message's words otherwise
// (子ども for 子供, ステッカー for シール) holds all of them with Synonyms,
// and only some without. (All but what no episode holds: てる, which counts
// against every candidate alike, Options.UnseenTerms.)
func TestSynonyms(t *testing.T) {
	s := newStore(t, nil)
	ids := add(t, s,
		ep("haruka", "子どもが冷蔵庫にステッカーを貼った", "にぎやかだね", 5),
		ep("haruka", "子供の頃の写真が出てきた", "なつかしい", 4), // 子供 and シール are held: they weigh
		ep("haruka", "シールを集めるのが好きだった", "かわいいよね", 3),
	)
	req := retriever.Request{User: "haruka", Text: "子供が冷蔵庫にシールを貼ってた", Recent: []retriever.Message{}, Now: now, WithCandidates: true}
	covers := map[bool]float64{}
	for _, on := range []bool{false, true} {
		o := retriever.DefaultOptions()
		o.Synonyms = on
		res, err := newRetriever(t, s, o).Retrieve(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Candidates {
			if h.Episode.ID == ids[0] {
				covers[on] = h.Coverage
			}
		}
		if on && (len(res.Hits) == 0 || res.Hits[0].Episode.ID != ids[0]) {
			t.Errorf("synonyms on: the sticker episode is not the first pick: %+v", res.Hits)
		}
	}
	if covers[true] < 0.9 || covers[false] >= 0.8 || covers[true]-covers[false] < 0.3 {
		t.Errorf("coverage without synonyms %v, with %v: want every word of the message the store holds held only with them", covers[false], covers[true])
	}
}

// TestZeroOptionsAreTheDefault: the zero Options works and is
// DefaultOptions(): the same hits, scores and decision.
func TestZeroOptionsAreTheDefault(t *testing.T) {
	s := newStore(t, nil)
	seed(t, s)
	req := retriever.Request{User: "haruka", Text: "駅前の新しいラーメン屋の味噌ラーメン", Recent: []retriever.Message{}, Now: now}
	var got [2]retriever.Result
	for i, o := range []retriever.Options{{}, retriever.DefaultOptions()} {
		r, err := retriever.New(s, o)
		if err != nil {
			t.Fatalf("options %d: %v", i, err)
		}
		if got[i], err = r.Retrieve(ctx, req); err != nil {
			t.Fatal(err)
		}
		got[i].Trace = retriever.Trace{}
	}
	if len(got[0].Hits) == 0 || !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("zero options %+v\ndefault      %+v", got[0].Hits, got[1].Hits)
	}
}
