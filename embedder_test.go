package omoide_test

import (
	"context"
	"math"
	"testing"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/tokenize"
)

// TestDefaultEmbedderWordFeatures pins the default embedder's word features
// for a sentence with interrogatives: its vectors must not change while its
// Identity stays "hash-v1+w", or a store built before would mix two vector
// spaces. The query analyzer leaves interrogatives out (KagomeSnowball); the
// embedder's words come from the unstemmed Kagome analyzer, which keeps
// them.
func TestDefaultEmbedderWordFeatures(t *testing.T) {
	const text = "どこで何を食べたっけ"
	pinned, err := embed.NewHash(embed.HashOptions{Terms: func(string) []string { return []string{"どこ", "何", "食べる"} }})
	if err != nil {
		t.Fatal(err)
	}
	def := omoide.DefaultEmbedder()
	if def.Identity() != pinned.Identity() {
		t.Fatalf("identity %v, pinned %v", def.Identity(), pinned.Identity())
	}
	got, err := def.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	want, err := pinned.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want[0] {
		if math.Float32bits(got[0][i]) != math.Float32bits(want[0][i]) {
			t.Fatalf("the default embedder's vector of %q differs at %d from the pinned word features: its words changed, so its Identity must too", text, i)
		}
	}
}

// TestNewHashEmbedder checks that NewHashEmbedder is the hash embedder the
// commands built themselves before it (kagome terms, the -dim dimension), to
// the bit, and that at dimension 0 it is DefaultEmbedder.
func TestNewHashEmbedder(t *testing.T) {
	texts := []string{"どこで何を食べたっけ", "中野の麺屋こはくで味噌バターラーメンを食べた", "ramen in Nakano"}
	for _, dim := range []int{0, 512} {
		got, err := omoide.NewHashEmbedder(dim)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := embed.NewHash(embed.HashOptions{Dim: dim, Terms: tokenize.Kagome().Terms})
		embedders := []embed.Embedder{want}
		if dim == 0 {
			embedders = append(embedders, omoide.DefaultEmbedder())
		}
		gv, err := got.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range embedders {
			if got.Identity() != w.Identity() {
				t.Fatalf("dim %d: identity %v, want %v", dim, got.Identity(), w.Identity())
			}
			wv, err := w.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range wv {
				for j := range wv[i] {
					if math.Float32bits(gv[i][j]) != math.Float32bits(wv[i][j]) {
						t.Fatalf("dim %d: the vector of %q differs at %d", dim, texts[i], j)
					}
				}
			}
		}
	}
	if _, err := omoide.NewHashEmbedder(-1); err == nil {
		t.Error("NewHashEmbedder(-1) did not fail")
	}
}
