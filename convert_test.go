package omoide_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// TestEvidenceOf: each hit becomes evidence with its episode's time and texts,
// its reason, and its relevance in MemoryPack's terms.
func TestEvidenceOf(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	res := retriever.Result{Hits: []retriever.Hit{
		{Episode: episode.Episode{UserText: "a", ReplyText: "b", OccurredAt: at}, Relevance: rerank.High, Reason: "r1"},
		{Episode: episode.Episode{UserText: "c"}, Relevance: rerank.Medium, Reason: "r2"},
	}}
	ev := omoide.EvidenceOf(res)
	if len(ev) != 2 || ev[0] != (memorypack.Evidence{OccurredAt: at, UserText: "a", ReplyText: "b", Relevance: memorypack.High, Reason: "r1"}) ||
		ev[1].Relevance != memorypack.Medium || ev[1].UserText != "c" {
		t.Fatalf("evidence = %+v", ev)
	}
	if !memorypack.ShouldInject(ev) || memorypack.ShouldInject(omoide.EvidenceOf(retriever.Result{})) {
		t.Fatal("ShouldInject disagrees with the hits")
	}
}

// TestEvidenceWith: one request's pack options render the same retrieval
// as Evidence does, in their own way; with the memory's options it is
// Evidence.
func TestEvidenceWith(t *testing.T) {
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	at := time.Date(2025, 6, 2, 19, 0, 0, 0, time.UTC)
	if _, err := mem.Add(ctx,
		episode.Episode{User: "haruka", UserText: "駅前に新しいラーメン屋ができたから行ってきた", ReplyText: "いいね！味はどうだった？", OccurredAt: at},
		episode.Episode{User: "haruka", UserText: "味噌ラーメンが濃厚でおいしかった", ReplyText: "また行きたくなるね", OccurredAt: at}); err != nil {
		t.Fatal(err)
	}
	req := retriever.Request{User: "haruka", Text: "この前のラーメン屋、また行きたいな", Now: at.AddDate(0, 0, 18), Recent: []retriever.Message{}}
	want, res, err := mem.Evidence(ctx, req)
	if err != nil || want == "" {
		t.Fatalf("Evidence: %q, %v", want, err)
	}
	if got, _, err := mem.EvidenceWith(ctx, req, mem.Pack); got != want || err != nil {
		t.Errorf("EvidenceWith(the memory's options) = %q, %v; Evidence = %q", got, err, want)
	}
	pack := mem.Pack
	pack.ShowReason = true
	got, res2, err := mem.EvidenceWith(ctx, req, pack)
	if err != nil || len(res2.Hits) != len(res.Hits) {
		t.Fatalf("EvidenceWith(reasons): %d hits, %v; Evidence %d", len(res2.Hits), err, len(res.Hits))
	}
	if wantReasons := memorypack.RenderEvidence(omoide.EvidenceOf(res2), pack); got != wantReasons || got == want {
		t.Errorf("EvidenceWith(reasons) = %q, want %q (and not Evidence's)", got, wantReasons)
	}
}
