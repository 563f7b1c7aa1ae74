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

// renamedEmbedder is an embedder under another identity, and not lexical
// (it hides the embedded one's Lexical): a semantic store's stand-in.
type renamedEmbedder struct {
	embed.Embedder
	id embed.Identity
}

func (e renamedEmbedder) Identity() embed.Identity { return e.id }

// TestAnySemanticModelOnlyForSemanticStores: a model fitted for any semantic
// embedder (bench train -semantic: FittedFor rerank.AnySemantic) decides for
// a semantic store as it is, never for a lexical one: there a given one is
// refused, and the shipped one gives way to the lexical store's model, as
// ModelFor and retriever.New say.
func TestAnySemanticModelOnlyForSemanticStores(t *testing.T) {
	sem, err := rerank.DefaultSemanticModel()
	if err != nil {
		t.Fatal(err)
	}
	def, err := rerank.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	lex, err := rerank.DefaultLexicalModel()
	if err != nil {
		t.Fatal(err)
	}
	b, err := sem.Encode()
	if err != nil {
		t.Fatal(err)
	}
	given, err := rerank.LoadModel(b) // a copy: as a model bench train -semantic writes and a caller loads
	if err != nil {
		t.Fatal(err)
	}
	if sem.FittedFor() != rerank.AnySemantic || given.FittedFor() != rerank.AnySemantic || rerank.Shipped(given) || !rerank.Shipped(sem) {
		t.Fatalf("fitted for %q and %q, shipped %v and %v: want two any-semantic models, one shipped", sem.FittedFor(), given.FittedFor(), rerank.Shipped(sem), rerank.Shipped(given))
	}
	const semanticID = "openai:text-embedding-3-small/1536" // no shipped model is fitted for it
	kept := "relevance model fitted for " + rerank.AnySemantic
	lexicalFallback := func(id string) string {
		return "embedder-free relevance model (the preset's model was fitted for " + rerank.AnySemantic + ", the store's embedder is " + id + ")"
	}
	for _, tt := range []struct {
		name    string
		m       *rerank.Model
		id      string
		lexical bool
		want    *rerank.Model // nil: refused with ErrModelEmbedder
		says    string
	}{
		{"given, semantic store: kept", given, semanticID, false, given, kept},
		{"shipped, semantic store: kept", sem, semanticID, false, sem, kept},
		{"given, lexical store: refused", given, "hash-v1+w/64", true, nil, ""},
		{"shipped, lexical store: the embedder-free model", sem, "hash-v1+w/64", true, lex, lexicalFallback("hash-v1+w/64")},
		{"shipped, the default model's store: the default model", sem, def.FittedFor(), true, def, "relevance model fitted for " + def.FittedFor()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, what, err := retriever.ModelFor(tt.m, tt.id, tt.lexical)
			if tt.want == nil {
				if !errors.Is(err, retriever.ErrModelEmbedder) || m != nil || !strings.Contains(err.Error(), rerank.AnySemantic) || !strings.Contains(err.Error(), tt.id) {
					t.Errorf("ModelFor = %p, %q, %v; want ErrModelEmbedder naming %s and %s", m, what, err, rerank.AnySemantic, tt.id)
				}
				return
			}
			if err != nil || m != tt.want || what != tt.says {
				t.Errorf("ModelFor = %p, %q, %v; want %p (semantic %p, lexical %p, default %p), %q", m, what, err, tt.want, sem, lex, def, tt.says)
			}
		})
	}

	// Through retriever.New: the hash embedder is lexical, its stand-in
	// under a semantic identity is not.
	h, err := embed.NewHash(embed.HashOptions{Dim: 64, Terms: tokenize.Kagome().Terms})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "d.db"), sqlite.Options{Embedder: h})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	semantic := storeWithEmbedder{s, renamedEmbedder{h, embed.Identity{Name: "openai:text-embedding-3-small", Dim: 64}}}
	if !embed.IsLexical(s.Embedder()) || embed.IsLexical(semantic.Embedder()) {
		t.Fatal("the hash embedder must be lexical and its renamed stand-in not")
	}
	hashID, semID := h.Identity().String(), semantic.Embedder().Identity().String()
	for _, tt := range []struct {
		name  string
		store retriever.Store
		m     *rerank.Model
		want  *rerank.Model // nil: New refuses with ErrModelEmbedder
		says  string
	}{
		{"given, semantic store", semantic, given, given, kept},
		{"given, hash store", s, given, nil, ""},
		{"shipped, semantic store", semantic, sem, sem, kept},
		{"shipped, hash store", s, sem, lex, lexicalFallback(hashID)},
	} {
		t.Run("New/"+tt.name, func(t *testing.T) {
			o := retriever.DefaultOptions()
			o.Rank.Inject.Model = tt.m
			r, err := retriever.New(tt.store, o)
			if tt.want == nil {
				if !errors.Is(err, retriever.ErrModelEmbedder) || !strings.Contains(err.Error(), hashID) {
					t.Errorf("New: %v; want ErrModelEmbedder naming %s", err, hashID)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v (store's embedder %s)", err, semID)
			}
			if got := r.Options().Rank.Inject.Model; got != tt.want || r.Decision() != tt.says {
				t.Errorf("model %p, decision %q; want %p (semantic %p, lexical %p), %q", got, r.Decision(), tt.want, sem, lex, tt.says)
			}
		})
	}
}
