package dataset

import (
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
