package episode_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
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
		{strings.Repeat("a", episode.MaxUserLen), ""}, {strings.Repeat("あ", episode.MaxUserLen/3), ""},
		{"", "is empty"}, {" \t", "is only white space"}, {"\u00a0", "is only white space"}, {"\u3000", "is only white space"},
		{strings.Repeat("a", episode.MaxUserLen+1), "longer than 256"},
		{"u\xff", "UTF-8"},
		{".", "dot segment"}, {"..", "dot segment"},
		{"a/b", "path separator"}, {"/", "path separator"}, {`a\b`, "path separator"},
		{"mika ", "ends with white space"}, {" mika", "begins with white space"}, {"mika\u3000", "ends with white space"},
		{"mi\tka", "control character"}, {"x\x00", "control character"}, {"a\u0085b", "control character"},
	} {
		err := episode.CheckUser(tc.user)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckUser(%q) = %v, want nil", tc.user, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, episode.ErrBadUser)):
			t.Errorf("CheckUser(%q) = %v, want ErrBadUser naming %q", tc.user, err, tc.want)
		}
		// The store's check applies it: an episode of that person.
		e := episode.Episode{User: tc.user, UserText: "x", OccurredAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		if nerr := e.Normalize(); (nerr == nil) != (err == nil) {
			t.Errorf("Normalize of %q's episode: %v, CheckUser %v", tc.user, nerr, err)
		}
	}
}

// TestRecordBounds: every field of a record has a bound, and a zero
// occurred_at given is refused rather than read as absent (now).
func TestRecordBounds(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ line, want string }{
		{`{"user":"u","user_text":"x","occurred_at":"0001-01-01T00:00:00Z"}`, "is the zero time"},
		{`{"user":"u","user_text":"x","occurred_at":"0001-01-01T00:00:01Z"}`, "outside 1900 to 9999"},
		{`{"user":"u","user_text":"x","source":"` + strings.Repeat("s", episode.MaxSourceLen+1) + `"}`, "source is 129 bytes, longer than 128"},
		{`{"user":"u","user_text":"x","id":"` + strings.Repeat("i", episode.MaxExternalIDLen+1) + `"}`, "longer than 512"},
		{`{"user":"u","user_text":"x","occurred_at":"2026-01-01T00:00:00Z","source":"line:group-42"}`, ""},
		{`{"user":"u","user_text":"x"}`, ""},
	} {
		var err error
		var rec episode.Record
		if err = json.Unmarshal([]byte(tc.line), &rec); err == nil {
			var e episode.Episode
			if e, err = rec.Episode(now); err == nil && !strings.Contains(tc.line, "occurred_at") && !e.OccurredAt.Equal(now) {
				t.Errorf("%s: occurred_at %v, want now", tc.line, e.OccurredAt)
			}
		}
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80s: %v, want %q", tc.line, err, tc.want)
		}
	}
}

// TestCheckExternalID: the one rule for an external id refuses what a URL
// client would resolve or split (dot segments in any spelling, separators,
// the query and fragment marks, control characters, white space at either
// end, what a URL parser strips), and takes every script and the ids
// callers use.
func TestCheckExternalID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want string // "" for a good id; else a word of the error
	}{
		{"", ""}, {"msg-1", ""}, {"line:U1:42", ""}, {"はるか-1", ""}, {"...", ""}, {"a.b", ""}, {".a", ""}, {"a..", ""},
		{"50%", ""}, {"%2e%2ex", ""}, {"%2F", ""}, {"a b", ""}, {"<abc@example.com>", ""}, {"a+b&c;d=e", ""},
		{strings.Repeat("i", episode.MaxExternalIDLen), ""},
		{".", "dot segment"}, {"..", "dot segment"}, {"%2e", "dot segment"}, {"%2E%2e", "dot segment"}, {".%2E", "dot segment"}, {"%2e.", "dot segment"},
		{"a/b", "path separator"}, {"/", "path separator"}, {`a\b`, "path separator"}, {`..\`, "path separator"},
		{"x?y", "'?'"}, {"..?", "'?'"}, {"#1", "'#'"},
		{" x", "begins with white space"}, {"x ", "ends with white space"}, {"x\u3000", "ends with white space"},
		{"a\tb", "control character"}, {"a\nb", "control character"}, {"a\x7fb", "control character"}, {"a\u0085b", "control character"},
		{strings.Repeat("i", episode.MaxExternalIDLen+1), "longer than 512"},
		{"x\xff", "UTF-8"},
	} {
		err := episode.CheckExternalID(tc.id)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckExternalID(%q) = %v, want nil", tc.id, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, episode.ErrBadExternalID)):
			t.Errorf("CheckExternalID(%q) = %v, want ErrBadExternalID naming %q", tc.id, err, tc.want)
		}
		// Every entry applies it: a record, as ingest and the HTTP API read
		// it, and an episode, as the store checks it.
		e := episode.Episode{User: "u", ExternalID: tc.id, UserText: "x", OccurredAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		if nerr := e.Normalize(); (nerr == nil) != (err == nil) {
			t.Errorf("Normalize with external id %q: %v, CheckExternalID %v", tc.id, nerr, err)
		}
		if _, rerr := (episode.Record{ID: tc.id, User: "u", UserText: "x"}).Episode(time.Now()); (rerr == nil) != (err == nil) {
			t.Errorf("Record{ID: %q}.Episode: %v, CheckExternalID %v", tc.id, rerr, err)
		}
	}
}

// TestConflictError: a conflict says which episode of its batch, wraps
// ErrConflict, and is found by errors.As through the store's wrapping.
func TestConflictError(t *testing.T) {
	err := fmt.Errorf("episode store: add: %w", &episode.ConflictError{Index: 2, User: "はるか", ExternalID: "m1"})
	var ce *episode.ConflictError
	if !errors.Is(err, episode.ErrConflict) || !errors.As(err, &ce) || ce.Index != 2 || ce.ExternalID != "m1" {
		t.Fatalf("%v: not a ConflictError of episode 2 wrapping ErrConflict", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `episode 2 (user "はるか", external id "m1")`) || !strings.Contains(msg, "Update replaces it") {
		t.Errorf("message %q", msg)
	}
	if msg := (&episode.ConflictError{InBatch: true}).Error(); !strings.Contains(msg, "twice") {
		t.Errorf("in batch: %q", msg)
	}
}
