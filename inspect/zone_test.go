package inspect_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/inspect"
)

// TestDatesInTheServersZone: with a zone (-tz: the memory's Pack.Location),
// every date the inspector shows is that zone's, as the evidence's is, and a
// typed now without an offset is read in it.
func TestDatesInTheServersZone(t *testing.T) {
	f := newFixture(t, inspect.Config{})
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	f.mem.Pack.Location = tokyo
	late := time.Date(2025, 7, 22, 20, 0, 0, 0, time.UTC) // 2025-07-23 05:00 in Tokyo
	if _, err := f.mem.Add(ctx, episode.Episode{User: "yui", UserText: "夜中に花火大会の夢を見た", ReplyText: "どんな夢？", OccurredAt: late}); err != nil {
		t.Fatal(err)
	}
	if _, body, _ := f.get(t, personURL("yui")); !strings.Contains(body, "2025-07-23 05:00") || strings.Contains(body, "2025-07-22 20:00") {
		t.Errorf("the person's page does not show Tokyo's time")
	}
	q := url.Values{"user": {"yui"}, "text": {"花火大会の夢の話"}, "now": {"2026-05-01T21:30"}}
	status, body, _ := f.get(t, "/ui/ask?"+q.Encode())
	if status != 200 || !strings.Contains(body, "[2025-07-23]") {
		t.Fatalf("ask: %d, the evidence's date is not Tokyo's", status)
	}
	if strings.Contains(body, "2025-07-22") {
		t.Error("a candidate row shows the UTC day")
	}
	if !strings.Contains(body, "2026-05-01T21:30:00+09:00") {
		t.Error("a typed now without an offset is not read in Tokyo")
	}
}
