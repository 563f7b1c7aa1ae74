package omoide_test

import (
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// TestRequestOf: a query's context becomes the request's Recent, never nil,
// so that the stored episodes never stand in for an empty context.
func TestRequestOf(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	req := omoide.RequestOf(dataset.Query{User: "u", Text: "t", Now: now, Context: []dataset.Message{{Role: "user", Content: "c"}}})
	if req.User != "u" || req.Text != "t" || !req.Now.Equal(now) || len(req.Recent) != 1 || req.Recent[0] != (retriever.Message{Role: "user", Content: "c"}) {
		t.Fatalf("request = %+v", req)
	}
	if omoide.RequestOf(dataset.Query{}).Recent == nil {
		t.Fatal("an empty context became a nil Recent")
	}
}

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
