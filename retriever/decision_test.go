//go:build cgo

package retriever_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
	"github.com/omoide/omoide/tokenize"
)

// TestDecisionSuitsTheEmbedder: the default model decides for the hash
// embedder it was fitted for; a store of another embedder is decided for by
// the embedder-free model, and the trace says which.
func TestDecisionSuitsTheEmbedder(t *testing.T) {
	def, err := rerank.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	lex, err := rerank.DefaultLexicalModel()
	if err != nil {
		t.Fatal(err)
	}
	if lex.FittedFor() != rerank.AnyEmbedder || def.FittedFor() == "" || def.FittedFor() == rerank.AnyEmbedder {
		t.Fatalf("fitted for: default %q, lexical %q", def.FittedFor(), lex.FittedFor())
	}
	for _, tt := range []struct {
		dim  int
		want *rerank.Model
		says string
	}{
		{embed.DefaultHashDim, def, "relevance model fitted for " + def.FittedFor()},
		{64, lex, "embedder-free relevance model (the preset's model was fitted for " + def.FittedFor() + ", the store's embedder is hash-v1+w/64)"},
	} {
		h, err := embed.NewHash(embed.HashOptions{Dim: tt.dim, Terms: tokenize.Kagome().Terms}) // as omoide.NewHashEmbedder
		if err != nil {
			t.Fatal(err)
		}
		s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "d.db"), sqlite.Options{Embedder: h})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		seed(t, s)
		r := newRetriever(t, s, retriever.DefaultOptions())
		if got := r.Options().Rank.Inject.Model; got != tt.want || r.Decision() != tt.says {
			t.Errorf("dim %d: model %p (default %p, lexical %p), decision %q; want %q", tt.dim, got, def, lex, r.Decision(), tt.says)
		}
		res, err := r.Retrieve(ctx, retriever.Request{User: "haruka", Text: "ラーメン屋の味噌ラーメン", Recent: []retriever.Message{}, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if res.Trace.Decision != tt.says {
			t.Errorf("dim %d: trace decision %q", tt.dim, res.Trace.Decision)
		}
	}
	// A model given by the caller, fitted for another embedder, is refused
	// with both named, not replaced.
	b, err := def.Encode()
	if err != nil {
		t.Fatal(err)
	}
	given, err := rerank.LoadModel(b)
	if err != nil {
		t.Fatal(err)
	}
	if rerank.Shipped(given) || !rerank.Shipped(def) || !rerank.Shipped(lex) {
		t.Fatal("Shipped must tell the module's models from a copy")
	}
	if m, _, err := retriever.ModelFor(given, "openai:bge-m3/1024", false); !errors.Is(err, retriever.ErrModelEmbedder) || m != nil ||
		!strings.Contains(err.Error(), def.FittedFor()) || !strings.Contains(err.Error(), "openai:bge-m3/1024") {
		t.Errorf("a given model for another embedder: %v, %v; want an error naming both", m, err)
	}
	if m, _, err := retriever.ModelFor(given, def.FittedFor(), true); err != nil || m != given {
		t.Errorf("a given model for the store's embedder: %v, %v", m, err)
	}
	// The rules decide when there is no model, for any embedder.
	if _, what, err := retriever.ModelFor(nil, "openai:x/768", false); err != nil || !strings.HasPrefix(what, "rules") {
		t.Errorf("no model: %q, %v", what, err)
	}
	// The embedder-free model never reads the cosine.
	for _, tr := range lex.Trees {
		for _, n := range tr.Nodes {
			if n.Feature >= 0 && rerank.FeatureNames[n.Feature] == "cosine" {
				t.Fatal("the embedder-free model splits on the cosine")
			}
		}
	}
}
