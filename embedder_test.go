package omoide_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode/sqlite"
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

// TestStaticEmbedderStore builds a store with a static model (the tiny
// sentence-transformers fixture of embed/testdata/static), retrieves from
// it with the model's vectors, refuses to mix them with the hash
// embedder's, and moves a hash store to the model with Reembed.
func TestStaticEmbedderStore(t *testing.T) {
	ctx := context.Background()
	model, err := embed.LoadStatic(filepath.Join("embed", "testdata", "static", "st-ja"), embed.StaticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	eps := []omoide.Episode{
		{User: "haruka", ExternalID: "1", UserText: "猫が窓辺で丸くなって昼寝をしている。", ReplyText: "気持ちよさそうだね", OccurredAt: day},
		{User: "haruka", ExternalID: "2", UserText: "来週の月曜日に歯医者の予約を入れておいてください。", ReplyText: "了解、入れておくね", OccurredAt: day.Add(time.Hour)},
		{User: "haruka", ExternalID: "3", UserText: "富士山に登ったのは三年前の夏でした。", ReplyText: "山頂はどうだった？", OccurredAt: day.Add(2 * time.Hour)},
	}
	req := omoide.Request{User: "haruka", Text: "歯医者の予約はいつだっけ", Now: day.Add(48 * time.Hour), Recent: []omoide.Message{}, WithCandidates: true}

	path := filepath.Join(t.TempDir(), "static.db")
	mem, err := omoide.Open(ctx, omoide.Config{Path: path, Embedder: model})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Add(ctx, eps...); err != nil {
		t.Fatal(err)
	}
	res, err := mem.Retrieve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if tr := res.Trace; tr.Degraded != "" || len(tr.KNNHits) == 0 || tr.KNNHits[0] != len(eps) {
		t.Errorf("the vector arm with the static model: knn hits %v, degraded %q; want all %d episodes", tr.KNNHits, tr.Degraded, len(eps))
	}
	if len(res.Candidates) == 0 || res.Candidates[0].Episode.ExternalID != "2" {
		t.Errorf("first candidate %+v, want the dentist's appointment", res.Candidates)
	}
	if !strings.HasPrefix(res.Trace.Decision, "semantic-embedder relevance model") {
		t.Errorf("decision %q: a model fitted for the hash embedder must not read another embedder's cosines; a semantic one's are read by where they stand", res.Trace.Decision)
	}
	mem.Close()

	// The hash embedder cannot open the static store, nor the model a hash one.
	if _, err := omoide.Open(ctx, omoide.Config{Path: path}); err == nil || !strings.Contains(err.Error(), model.Identity().String()) {
		t.Errorf("hash on a static store: %v, want a refusal naming %s", err, model.Identity())
	}
	hashPath := filepath.Join(t.TempDir(), "hash.db")
	hmem, err := omoide.Open(ctx, omoide.Config{Path: hashPath})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hmem.Add(ctx, eps...); err != nil {
		t.Fatal(err)
	}
	hmem.Close()
	if _, err := omoide.Open(ctx, omoide.Config{Path: hashPath, Embedder: model}); err == nil {
		t.Error("the static model opened a store of hash vectors")
	}
	// Reembed moves it: the model opens it and finds the same episode.
	if n, err := sqlite.Reembed(ctx, hashPath, model, 0, nil); err != nil || n != len(eps) {
		t.Fatalf("Reembed = %d, %v", n, err)
	}
	mem, err = omoide.Open(ctx, omoide.Config{Path: hashPath, Embedder: model})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	res, err = mem.Retrieve(ctx, req)
	if err != nil || len(res.Candidates) == 0 || res.Candidates[0].Episode.ExternalID != "2" {
		t.Errorf("after Reembed: %+v, %v", res.Candidates, err)
	}
}
