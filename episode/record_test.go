package episode_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
)

// TestRecordEpisode: the one record reads back what RecordOf writes, takes
// the external id by either name, fills a missing occurred_at from now (or
// requires it when now is zero), and names what is wrong.
func TestRecordEpisode(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 30, 0, 0, time.UTC)
	now := time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)
	e := episode.Episode{ID: 7, User: "u", ExternalID: "x1", UserText: "hi", ReplyText: "hello", OccurredAt: at, Source: "chat",
		Kind: episode.KindFact, State: episode.StateValidated, Sensitivity: episode.SensitivityPrivate}
	b, err := json.Marshal(episode.RecordOf(e))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "external_id") {
		t.Errorf("export writes %s: want the id once, as \"id\"", b)
	}
	var r episode.Record
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	got, err := r.Episode(now)
	e.ID = 0 // the store's, not the record's
	if err != nil || got != e {
		t.Errorf("round trip: %+v, %v; want %+v", got, err, e)
	}
	cases := []struct {
		rec     episode.Record
		now     time.Time
		wantExt string
		wantAt  time.Time
		err     string
	}{
		{episode.Record{ExternalID: "e", User: "u", UserText: "a", OccurredAt: at}, time.Time{}, "e", at, ""},
		{episode.Record{ID: "e", ExternalID: "e", User: "u", UserText: "a", OccurredAt: at}, time.Time{}, "e", at, ""},
		{episode.Record{ID: "a", ExternalID: "b", User: "u", UserText: "a", OccurredAt: at}, now, "", time.Time{}, `id "a" and external_id "b" differ`},
		{episode.Record{ID: "e", User: "u", UserText: "a"}, now, "e", now, ""},
		{episode.Record{ID: "e", User: "u", UserText: "a"}, time.Time{}, "", time.Time{}, "occurred"},
		{episode.Record{ID: "e", UserText: "a", OccurredAt: at}, now, "", time.Time{}, "user"},
	}
	for _, c := range cases {
		got, err := c.rec.Episode(c.now)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: err %v, want one naming %q", c.rec, err, c.err)
			}
			continue
		}
		if err != nil || got.ExternalID != c.wantExt || !got.OccurredAt.Equal(c.wantAt) {
			t.Errorf("%+v: %+v, %v; want external id %q at %v", c.rec, got, err, c.wantExt, c.wantAt)
		}
	}
}

// TestReadRecords: each non-blank line is a record or that line's error, a
// line over MaxRecordLine is read past without being held, and what Export
// writes reads back.
func TestReadRecords(t *testing.T) {
	long := `{"id": "x", "user_text": "` + strings.Repeat("あ", episode.MaxRecordLine/3+1) + `"}`
	in := strings.Join([]string{
		`{"id": "a", "user": "u", "user_text": "hi", "occurred_at": "2025-06-01T12:00:00Z"}`,
		``,
		`{"id": "b", "user": "u", "color": "red"}`,
		long,
		"{\"id\": \"c\", \"user\": \"\xff\"}",
		`not json`,
		`  {"id": "d", "user": "u", "kind": "fact"}  `,
	}, "\n")
	var got []string
	err := episode.ReadRecords(context.Background(), strings.NewReader(in), func(line int, r episode.Record, err error) error {
		if err != nil {
			got = append(got, fmt.Sprintf("%d error %.30s", line, err))
		} else {
			got = append(got, fmt.Sprintf("%d %s %s %s", line, r.ID, r.User, r.Kind))
		}
		return nil
	})
	want := []string{
		"1 a u 0", // no kind given: Episode fills the default
		`3 error json: unknown field "color"`,
		"4 error line is " + fmt.Sprint(len(long)) + " bytes, longer t",
		"5 error not valid UTF-8 at byte 21 (se",
		"6 error invalid character 'o' in liter",
		"7 d u fact",
	}
	if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("read %v, %v\nwant %v", got, err, want)
	}
	stop := errors.New("stop")
	calls := 0
	if err := episode.ReadRecords(context.Background(), strings.NewReader(in), func(int, episode.Record, error) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("fn's error: %v after %d calls, want it at once", err, calls)
	}
}

// TestRecordOneReading: a program's own json.Unmarshal of a Record reads it
// as omoide's decoding does: a duplicate key, or one differing from a
// field's only by case, is refused, never read as the last or the folded
// one; a field of the wrong type is named.
func TestRecordOneReading(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"user":"j","user":"k","user_text":"x"}`, `duplicate key "user"`},
		{`{"user":"j","USER":"k","user_text":"x"}`, `key "USER" is not "user"`},
		{`{"User":"k","user_text":"x"}`, `key "User" is not "user"`},
		{`{"user":"j","user_text":7}`, `user_text: want a string, got a number`},
		{`{"user":"j","user_text":"x","occurred_at":"2026-01-01T00:00:00+24:00"}`, `offset +24:00 is beyond ±23:59`},
	} {
		var r episode.Record
		if err := json.Unmarshal([]byte(tc.in), &r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("json.Unmarshal(%s) = %v, %+v; want an error naming %q", tc.in, err, r, tc.want)
		}
	}
}
