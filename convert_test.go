package omoide_test

import (
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
