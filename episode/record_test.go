package episode

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRecordEpisode: the one record reads back what RecordOf writes, takes
// the external id by either name, fills a missing occurred_at from now (or
// requires it when now is zero), and names what is wrong.
func TestRecordEpisode(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 30, 0, 0, time.UTC)
	now := time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)
	e := Episode{ID: 7, User: "u", ExternalID: "x1", UserText: "hi", ReplyText: "hello", OccurredAt: at, Source: "chat",
		Kind: KindFact, State: StateValidated, Sensitivity: SensitivityPrivate}
	b, err := json.Marshal(RecordOf(e))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "external_id") {
		t.Errorf("export writes %s: want the id once, as \"id\"", b)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	got, err := r.Episode(now)
	e.ID = 0 // the store's, not the record's
	if err != nil || got != e {
		t.Errorf("round trip: %+v, %v; want %+v", got, err, e)
	}
	cases := []struct {
		rec     Record
		now     time.Time
		wantExt string
		wantAt  time.Time
		err     string
	}{
		{Record{ExternalID: "e", User: "u", UserText: "a", OccurredAt: at}, time.Time{}, "e", at, ""},
		{Record{ID: "e", ExternalID: "e", User: "u", UserText: "a", OccurredAt: at}, time.Time{}, "e", at, ""},
		{Record{ID: "a", ExternalID: "b", User: "u", UserText: "a", OccurredAt: at}, now, "", time.Time{}, `id "a" and external_id "b" differ`},
		{Record{ID: "e", User: "u", UserText: "a"}, now, "e", now, ""},
		{Record{ID: "e", User: "u", UserText: "a"}, time.Time{}, "", time.Time{}, "occurred"},
		{Record{ID: "e", UserText: "a", OccurredAt: at}, now, "", time.Time{}, "user"},
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
