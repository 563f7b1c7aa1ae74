package omoidehttp_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/omoidehttp"
)

// TestClientAndMover: a Client reads a node's people and a person's
// episodes page by page, and says what a node refuses; a Mover moves a
// person between two handlers whole, and refuses a move to the same node.
func TestClientAndMover(t *testing.T) {
	ctx := context.Background()
	node := func(name, token string) string {
		mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), name+".db")})
		if err != nil {
			t.Fatal(err)
		}
		h := omoidehttp.NewHandler(mem, omoidehttp.Config{Node: name, Token: token})
		srv := httptest.NewServer(h)
		t.Cleanup(func() { srv.Close(); h.Wait(); mem.Close() })
		return srv.URL
	}
	a, b := node("a", "tok"), node("b", "tok")
	src := omoidehttp.Client{BaseURL: a + "/", Token: "tok"}
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var recs []episode.Record
	for i := range omoidehttp.MaxPage + 5 { // two pages
		recs = append(recs, episode.Record{ID: fmt.Sprint("e", i), User: "haruka 1%",
			UserText: "話", ReplyText: "うん", OccurredAt: at.Add(time.Duration(i) * time.Minute)})
	}
	recs = append(recs, episode.Record{ID: "k1", User: "kenta", UserText: "x", OccurredAt: at})
	if err := src.Do(ctx, "POST", "/v1/episodes", nil, recs, nil); err != nil {
		t.Fatal(err)
	}
	people, err := src.People(ctx)
	if err != nil || len(people) != 2 || people[0].User != "haruka 1%" || people[0].Episodes != omoidehttp.MaxPage+5 {
		t.Fatalf("people %v, %v", people, err)
	}
	if name, err := src.Node(ctx, nil); err != nil || name != "a" {
		t.Errorf("node %q, %v", name, err)
	}
	if _, err := (omoidehttp.Client{BaseURL: a}).People(ctx); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("without the token: %v, want a 401 with the node's message", err)
	}
	m := omoidehttp.Mover{From: a, To: b, Token: "tok"}
	if n, err := m.Move(ctx, "haruka 1%"); err != nil || n != omoidehttp.MaxPage+5 {
		t.Fatalf("move: %d, %v", n, err)
	}
	moved, err := omoidehttp.Client{BaseURL: b, Token: "tok"}.Episodes(ctx, "haruka 1%")
	if err != nil || len(moved) != omoidehttp.MaxPage+5 {
		t.Fatalf("at the destination: %d, %v", len(moved), err)
	}
	if left, err := src.Episodes(ctx, "haruka 1%"); err != nil || len(left) != 0 {
		t.Errorf("at the source after the move: %d, %v", len(left), err)
	}
	if _, err := (omoidehttp.Mover{From: a, To: a + "/"}).Move(ctx, "kenta"); err == nil || !strings.Contains(err.Error(), "same node") {
		t.Errorf("a move to the same node: %v", err)
	}
}
