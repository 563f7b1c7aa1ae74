package dataset

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/omoide/omoide/retriever"
)

// TestQueryRequest: a query's context becomes the request's Recent, never nil,
// so that the stored episodes never stand in for an empty context.
func TestQueryRequest(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	req := Query{User: "u", Text: "t", Now: now, Context: []Message{{Role: "user", Content: "c"}}}.Request()
	if req.User != "u" || req.Text != "t" || !req.Now.Equal(now) || len(req.Recent) != 1 || req.Recent[0] != (retriever.Message{Role: "user", Content: "c"}) {
		t.Fatalf("request = %+v", req)
	}
	if (Query{}).Request().Recent == nil {
		t.Fatal("an empty context became a nil Recent")
	}
}

// TestQueryRequestZone: a query's days are those of the offset its now is
// written with.
func TestQueryRequestZone(t *testing.T) {
	var q Query
	if err := json.Unmarshal([]byte(`{"now": "2026-11-24T00:30:00+09:00"}`), &q); err != nil {
		t.Fatal(err)
	}
	req := q.Request()
	if req.Location == nil {
		t.Fatal("no location")
	}
	if y, m, d := req.Now.In(req.Location).Date(); y != 2026 || m != 11 || d != 24 {
		t.Errorf("the turn's day in its zone is %d-%d-%d, want 2026-11-24 (UTC says the 23rd)", y, m, d)
	}
	if err := json.Unmarshal([]byte(`{"now": "2026-11-24T00:30:00Z"}`), &q); err != nil {
		t.Fatal(err)
	}
	if req := q.Request(); req.Location != nil {
		t.Errorf("a now in UTC set the location %v: the retriever's own is to say", req.Location)
	}
}
