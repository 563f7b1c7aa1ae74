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

// TestLegacyNamesStayReachable: a store written before the rule (made by the
// code of bfcc12a: testdata/stores/legacy-names.db) still opens; BadNames
// names its people the rule refuses; they can be exported and forgotten but
// get no new episode.
func TestLegacyNamesStayReachable(t *testing.T) {
	ctx := context.Background()
	b, err := os.ReadFile("../../testdata/stores/legacy-names.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "legacy.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path, Options{}) // the embedder it recorded: Add fails on the name before it embeds
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
