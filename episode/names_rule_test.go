package episode

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCheckUser: the one rule for a person's name refuses what a URL or a
// header would change or cannot carry, and takes every script.
func TestCheckUser(t *testing.T) {
	for _, tc := range []struct {
		user string
		want string // "" for a good name; else a word of the error
	}{
		{"haruka", ""}, {"はるか", ""}, {"王小明", ""}, {"김민지", ""}, {"Иван", ""}, {"محمد", ""},
		{"a b", ""}, {"50%", ""}, {"a.b", ""}, {"...", ""}, {"line:U1", ""}, {"a+b?c#d&e;f", ""},
		{strings.Repeat("a", MaxUserLen), ""}, {strings.Repeat("あ", MaxUserLen/3), ""},
		{"", "empty"}, {" \t", "empty"},
		{strings.Repeat("a", MaxUserLen+1), "longer than 256"},
		{"u\xff", "UTF-8"},
		{".", "dot segment"}, {"..", "dot segment"},
		{"a/b", "path separator"}, {"/", "path separator"}, {`a\b`, "path separator"},
		{"mika ", "ends with white space"}, {" mika", "begins with white space"}, {"mika\u3000", "ends with white space"},
		{"mi\tka", "control character"}, {"x\x00", "control character"}, {"a\u0085b", "control character"},
	} {
		err := CheckUser(tc.user)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckUser(%q) = %v, want nil", tc.user, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrBadUser)):
			t.Errorf("CheckUser(%q) = %v, want ErrBadUser naming %q", tc.user, err, tc.want)
		}
	}
}

// TestLegacyNamesStayReachable: a store written before the rule (made by the
// code of bfcc12a: testdata/stores/legacy-names.db) still opens; BadNames
// names its people the rule refuses; they can be exported and forgotten but
// get no new episode.
func TestLegacyNamesStayReachable(t *testing.T) {
	ctx := context.Background()
	b, err := os.ReadFile("../testdata/stores/legacy-names.db")
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
		if _, err := s.Add(ctx, []Episode{{User: u, UserText: "new", OccurredAt: time.Now()}}); !errors.Is(err, ErrBadUser) {
			t.Errorf("Add for %q: %v, want ErrBadUser", u, err)
		}
	}
	if er, err := s.DeleteUser(ctx, ".."); err != nil || er.Episodes != 1 {
		t.Fatalf("DeleteUser(..) = %+v, %v", er, err)
	}
	if n, err := s.Count(ctx, "mika"); err != nil || n != 1 {
		t.Errorf("mika has %d episodes after forgetting \"..\" (%v), want 1", n, err)
	}
}

// TestRecordBounds: every field of a record has a bound, and a zero
// occurred_at given is refused rather than read as absent (now).
func TestRecordBounds(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ line, want string }{
		{`{"user":"u","user_text":"x","occurred_at":"0001-01-01T00:00:00Z"}`, "is the zero time"},
		{`{"user":"u","user_text":"x","occurred_at":"0001-01-01T00:00:01Z"}`, "outside 1900 to 9999"},
		{`{"user":"u","user_text":"x","source":"` + strings.Repeat("s", MaxSourceLen+1) + `"}`, "source is 129 bytes, longer than 128"},
		{`{"user":"u","user_text":"x","id":"` + strings.Repeat("i", MaxExternalIDLen+1) + `"}`, "longer than 512"},
		{`{"user":"u","user_text":"x","occurred_at":"2026-01-01T00:00:00Z","source":"line:group-42"}`, ""},
		{`{"user":"u","user_text":"x"}`, ""},
	} {
		var err error
		var rec Record
		if err = json.Unmarshal([]byte(tc.line), &rec); err == nil {
			var e Episode
			if e, err = rec.Episode(now); err == nil && !strings.Contains(tc.line, "occurred_at") && !e.OccurredAt.Equal(now) {
				t.Errorf("%s: occurred_at %v, want now", tc.line, e.OccurredAt)
			}
		}
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80s: %v, want %q", tc.line, err, tc.want)
		}
	}
}
