package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

// openTestStore opens a copy of testdata/stores/NAME, with the embedder it
// recorded, until the test ends.
func openTestStore(t *testing.T, name string) *Store {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/stores", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestLegacyNamesStayReachable: a store written before the rule (made by the
// code of bfcc12a: testdata/stores/legacy-names.db) still opens; BadNames
// names its people the rule refuses; they can be exported and forgotten but
// get no new episode.
func TestLegacyNamesStayReachable(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "legacy-names.db") // the embedder it recorded: Add fails on the name before it embeds
	bad, err := s.BadNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bad {
		names = append(names, b.User)
	}
	want := []string{" mika", ".", "..", "a\\b", "line/U1", "mika ", "tab\there"}
	if !slices.Equal(names, want) {
		t.Fatalf("BadNames = %q, want %q", names, want)
	}
	for _, u := range want {
		eps, err := s.Episodes(ctx, u, 0, 10)
		if err != nil || len(eps) != 1 || !strings.HasPrefix(eps[0].UserText, u+"の秘密") {
			t.Errorf("Episodes(%q) = %v, %v: want their one episode", u, eps, err)
		}
		if _, err := s.Add(ctx, []episode.Episode{{User: u, UserText: "new", OccurredAt: time.Now()}}); !errors.Is(err, episode.ErrBadUser) {
			t.Errorf("Add for %q: %v, want ErrBadUser", u, err)
		}
	}
	if er, err := s.Forget(ctx, ".."); err != nil || er.Episodes != 1 {
		t.Fatalf("Forget(..) = %+v, %v", er, err)
	}
	if n, err := s.Count(ctx, "mika"); err != nil || n != 1 {
		t.Errorf("mika has %d episodes after forgetting \"..\" (%v), want 1", n, err)
	}
}

// TestLegacyIDsStayReachable: a store written before the id rule (made by
// the code of 0333031: testdata/stores/legacy-ids.db) still opens; BadIDs
// and Check name its episodes whose external ids the rule refuses; they can
// be exported, found and deleted by their store ids, and no new episode
// takes such an id, not even one stored already.
func TestLegacyIDsStayReachable(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "legacy-ids.db")
	r, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, b := range r.BadIDs {
		ids = append(ids, b.User+"/"+b.ExternalID)
		if !strings.HasPrefix(b.Problem, "external id ") || b.ID == 0 {
			t.Errorf("BadID %+v: want a store id and the rule's words", b)
		}
	}
	want := []string{"kenji/.", "kenji/..", "kenji/%2e%2e", "kenji/.%2E", "kenji/a/b", `kenji/a\b`, "kenji/x?y", "kenji/x#y", "kenji/tab\there", "kenji/ pad", "kenji/pad ", "はるか/.."}
	if !slices.Equal(ids, want) {
		t.Fatalf("Check's BadIDs = %q, want %q", ids, want)
	}
	if len(r.Problems) != 0 {
		t.Errorf("a bad id is no problem of the tables: %q", r.Problems)
	}
	var out strings.Builder
	if n, err := s.Export(ctx, "kenji", &out); err != nil || n != 12 || !strings.Contains(out.String(), `"id":".."`) {
		t.Errorf("Export(kenji) = %d, %v: want every episode, the bad ids with them", n, err)
	}
	for _, b := range r.BadIDs {
		e := episode.Episode{User: b.User, ExternalID: b.ExternalID, UserText: "new", OccurredAt: time.Now()}
		if _, err := s.Add(ctx, []episode.Episode{e}); !errors.Is(err, episode.ErrBadExternalID) {
			t.Errorf("Add under %q: %v, want ErrBadExternalID", b.ExternalID, err)
		}
	}
	dotdot := r.BadIDs[1]
	if id, err := s.IDByExternal(ctx, "kenji", ".."); err != nil || id != dotdot.ID {
		t.Errorf("IDByExternal(kenji, ..) = %d, %v; want %d", id, err, dotdot.ID)
	}
	d, err := s.Delete(ctx, dotdot.ID)
	if err != nil || len(d.Episodes) != 1 || d.Episodes[0].ExternalID != ".." || d.Episodes[0].User != "kenji" {
		t.Fatalf("Delete(%d) = %+v, %v", dotdot.ID, d, err)
	}
	if n, _ := s.Count(ctx, "kenji"); n != 11 {
		t.Errorf("kenji holds %d after deleting one of 12", n)
	}
	if n, _ := s.Count(ctx, "はるか"); n != 2 {
		t.Errorf("はるか holds %d, want her 2: the delete of kenji's \"..\" reached her", n)
	}
}
