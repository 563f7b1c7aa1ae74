package retriever

import (
	"slices"
	"strings"
	"testing"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/tokenize"
)

type analyzerStore struct {
	Store
	a tokenize.Analyzer
}

func (s analyzerStore) Analyzer() tokenize.Analyzer { return s.a }

func (analyzerStore) Embedder() embed.Embedder { return nil }

// TestMessageFirstTerms: with BM25.MessageFirst, Q2's BM25 terms, built from
// the message's terms and each context message's (cached), are the terms of
// the message and the context from the newest message back, clipped to
// BM25.MaxChars (0 clips nothing), and never the role labels.
func TestMessageFirstTerms(t *testing.T) {
	a := tokenize.Kagome()
	recent := []Message{
		{Role: "user", Content: "週末は  鎌倉へ行って、しらす丼を食べた"},
		{Role: "assistant", Content: "しらす丼いいですね！江ノ電にも乗りましたか"},
		{Role: "system", Content: "ignored"},
		{Role: "user", Content: "乗った乗った、海がきれいだった"},
	}
	msg := "次は紅葉の季節に京都へ行きたい"
	for _, chars := range []int{0, 5, 16, 17, 18, 30, 45, 60, 256} {
		o := DefaultOptions()
		o.BM25.MaxChars = chars
		r, err := New(analyzerStore{a: a}, o)
		if err != nil {
			t.Fatal(err)
		}
		clip := func(s string) string { // 0 clips nothing
			if chars == 0 {
				return s
			}
			return pytext.Head(s, chars)
		}
		want := a.Terms(clip(pytext.Compact(msg + "\n" + recent[3].Content + "\n" + recent[1].Content + "\n" + recent[0].Content)))
		for pass := range 2 { // the second pass reads the context's terms from the cache
			q := r.queries(r.store.Analyzer(), msg, recent)
			if len(q.terms) != 2 {
				t.Fatalf("chars %d: %d queries, want 2", chars, len(q.terms))
			}
			if !slices.Equal(q.terms[1], want) {
				t.Errorf("chars %d, pass %d: Q2 terms %q, want %q", chars, pass, q.terms[1], want)
			}
			if !slices.Equal(q.terms[0], a.Terms(clip(msg))) {
				t.Errorf("chars %d: Q1 terms %q", chars, q.terms[0])
			}
			for _, label := range []string{"user", "persona", "User", "Persona"} {
				if slices.Contains(q.terms[1], label) {
					t.Errorf("chars %d: Q2 terms %q hold the label %q", chars, q.terms[1], label)
				}
			}
			if !strings.HasPrefix(q.bm25[1], msg+"\n") {
				t.Errorf("Q2's BM25 text %q does not start with the message", q.bm25[1])
			}
		}
	}
}
