package omoide_test

import (
	"context"
	"math"
	"testing"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/embed"
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
