package omoide_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// TestOneTimeZone: Config.Location is the zone of the time expressions and
// of the evidence dates alike, and a Request's Location overrides it. At
// 00:30 on the 21st in Tokyo it is the 20th in UTC, so "昨日" is the 20th in
// Tokyo (one exchange, at 08:00 there, dated the 20th) and the 19th in UTC
// (both exchanges, the 08:00 one dated the 19th, 23:00 UTC).
func TestOneTimeZone(t *testing.T) {
	ctx := context.Background()
	tokyo := time.FixedZone("JST", 9*3600)
	now := time.Date(2025, 12, 21, 0, 30, 0, 0, tokyo)
	eps := []episode.Episode{
		{User: "u", ExternalID: "morning-20th-tokyo", UserText: "映画を観に行く", ReplyText: "楽しんで！", OccurredAt: time.Date(2025, 12, 20, 8, 0, 0, 0, tokyo)},
		{User: "u", ExternalID: "evening-19th-tokyo", UserText: "本屋に寄った", ReplyText: "何か買った？", OccurredAt: time.Date(2025, 12, 19, 12, 0, 0, 0, time.UTC)},
	}
	for _, tt := range []struct {
		name          string
		config, req   *time.Location
		hits          int
		date, notDate string
	}{
		{"utc", nil, nil, 2, "[2025-12-19]", "[2025-12-20]"},
		{"config", tokyo, nil, 1, "[2025-12-20]", "[2025-12-19]"},
		{"request", nil, tokyo, 1, "[2025-12-20]", "[2025-12-19]"},
		{"request over config", tokyo, time.UTC, 2, "[2025-12-19]", "[2025-12-20]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "m.db"), Location: tt.config})
			if err != nil {
				t.Fatal(err)
			}
			defer mem.Close()
			if _, err := mem.Add(ctx, eps...); err != nil {
				t.Fatal(err)
			}
			section, res, err := mem.Evidence(ctx, retriever.Request{User: "u", Text: "昨日何話したっけ", Now: now,
				Recent: []retriever.Message{}, Location: tt.req})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != tt.hits {
				t.Fatalf("%d hits (window %s), want %d", len(res.Hits), res.Trace.Window, tt.hits)
			}
			if !strings.Contains(section, tt.date) || strings.Contains(section, tt.notDate) {
				t.Fatalf("section dates the morning exchange wrongly, want %s:\n%s", tt.date, section)
			}
		})
	}
}
