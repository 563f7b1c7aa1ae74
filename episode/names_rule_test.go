package episode_test

import (
	"encoding/json"
	"errors"
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
		{"", "empty"}, {" \t", "empty"},
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
