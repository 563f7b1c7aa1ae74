package retriever_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
)

var (
	ctx = context.Background()
	now = time.Date(2025, 12, 21, 11, 0, 0, 0, time.UTC)
)

func newStore(t testing.TB, a tokenize.Analyzer) *episode.Store {
	t.Helper()
	h, err := embed.NewHash(embed.HashOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := episode.Open(ctx, filepath.Join(t.TempDir(), "omoide.db"), episode.Options{Embedder: h, Analyzer: a})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func add(t testing.TB, s *episode.Store, eps ...episode.Episode) []int64 {
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

func seed(t testing.TB, s *episode.Store) []int64 {
	return add(t, s,
		ep("haruka", "駅前の新しいラーメン屋で味噌ラーメンを食べたよ", "いいね！濃厚だった？", 40),
		ep("haruka", "膝が痛くて今日のジョギングは休んだ", "無理しないでね。病院には行った？", 30),
		ep("haruka", "姉と週末に買い物に行く予定", "楽しんできてね！", 20),
		ep("kenta", "息子とキャンプでラーメンを作った", "外で食べるラーメンは格別ですね", 10),
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
	if h.Relevance.String() != "high" || !strings.HasPrefix(h.Reason, "heuristic rerank: score=") || h.RRFNorm != 1 {
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
	res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: huge, Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatal("a 1 MB message about ramen found nothing")
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

	// At most the last 6 messages, compacted, unknown roles skipped.
	var msgs []retriever.Message
	for i := range 8 {
		msgs = append(msgs, retriever.Message{Role: []string{"user", "assistant"}[i%2], Content: " m\n" + string(rune('0'+i)) + " "})
	}
	msgs = append(msgs, retriever.Message{Role: "system", Content: "ignored"}, retriever.Message{Role: "user", Content: " \u3000 "})
	res, _ = r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "x", Recent: msgs, Now: now})
	want = "User: m 2\nPersona: m 3\nUser: m 4\nPersona: m 5\nUser: m 6\nPersona: m 7\n---\nx"
	if res.Trace.Queries[1] != want {
		t.Fatalf("Q2 = %q\nwant %q", res.Trace.Queries[1], want)
	}

	// An empty, non-nil Recent means no context: one query.
	res, _ = r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "x", Recent: []retriever.Message{}, Now: now})
	if len(res.Trace.Queries) != 1 {
		t.Fatalf("queries = %q", res.Trace.Queries)
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

func TestRetrieveAgeFilter(t *testing.T) {
	s := newStore(t, nil)
	add(t, s, ep("u", "ラーメン食べた", "", 400), ep("u", "ラーメン食べた!", "", 364))
	r := newRetriever(t, s, retriever.DefaultOptions())
	res, err := r.Retrieve(ctx, retriever.Request{User: "u", Text: "ラーメン食べた", Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Episode.UserText != "ラーメン食べた!" {
		t.Fatalf("hits = %+v, want only the episode inside 365 days", res.Hits)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	s := newStore(t, nil)
	o := retriever.DefaultOptions()
	o.KNNK = -1
	if _, err := retriever.New(s, o); err == nil || !strings.Contains(err.Error(), "KNNK") {
		t.Fatalf("err = %v, want one naming KNNK", err)
	}
	o = retriever.DefaultOptions()
	o.KNNK, o.BM25K = 0, 0
	if _, err := retriever.New(s, o); err == nil {
		t.Fatal("no arm enabled, no error")
	}
}

type failingEmbedder struct{ embed.Embedder }

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, context.DeadlineExceeded
}

type storeWithEmbedder struct {
	*episode.Store
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
