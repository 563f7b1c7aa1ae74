package omoide_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/retriever"
)

// offPathMemory holds one person's exchanges, a stated fact, a summary, a
// private exchange and an archived one, the newest three days before now.
func offPathMemory(t *testing.T) (*omoide.Memory, time.Time) {
	t.Helper()
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	now := time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)
	day := func(n int) time.Time { return now.AddDate(0, 0, -n) }
	_, err = mem.Add(ctx,
		episode.Episode{User: "haruka", ExternalID: "e1", UserText: "週末は友だちと映画を見に行ったよ", ReplyText: "何を見たの？", OccurredAt: day(20)},
		episode.Episode{User: "haruka", ExternalID: "e2", UserText: "最近ジョギングを始めた", ReplyText: "すごいね！", OccurredAt: day(12)},
		episode.Episode{User: "haruka", ExternalID: "f1", UserText: "好きな食べ物はカレーライス", Kind: episode.KindFact, OccurredAt: day(30)},
		episode.Episode{User: "haruka", ExternalID: "s1", ReplyText: "要約: 春に引っ越しを考えている", Kind: episode.KindSummary, OccurredAt: day(8)},
		episode.Episode{User: "haruka", ExternalID: "p1", UserText: "心療内科の先生に眠れないことを相談した", ReplyText: "話してくれてありがとう",
			Sensitivity: episode.SensitivityPrivate, OccurredAt: day(6)},
		episode.Episode{User: "haruka", ExternalID: "a1", UserText: "昔のバイト先の店長の話", ReplyText: "懐かしいね", State: episode.StateArchived, OccurredAt: day(5)},
		episode.Episode{User: "haruka", ExternalID: "k1", UserText: "鎌倉の大仏を見てきた！", ReplyText: "大きかった？", OccurredAt: day(3)},
		episode.Episode{User: "haruka", ExternalID: "k2", UserText: "帰りに江ノ電に乗ったよ", ReplyText: "海が見えるよね", OccurredAt: day(3).Add(time.Minute)},
	)
	if err != nil {
		t.Fatal(err)
	}
	return mem, now
}

func hitIDs(res retriever.Result) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Episode.ExternalID)
	}
	return out
}

func hasHit(res retriever.Result, ext string) bool {
	for _, h := range res.Hits {
		if h.Episode.ExternalID == ext {
			return true
		}
	}
	return false
}

// TestEveryStoredMemoryIsReachable: what the default searches (every kind,
// normal sensitivity, not archived) and how a request widens or narrows it.
func TestEveryStoredMemoryIsReachable(t *testing.T) {
	ctx := context.Background()
	mem, now := offPathMemory(t)
	private := &retriever.Filter{MaxSensitivity: episode.SensitivityPrivate, States: retriever.DefaultOptions().Filter.States}
	for _, tt := range []struct {
		name, text string
		filter     *retriever.Filter
		want       string
		found      bool
	}{
		{"a stated fact", "カレーライス好きだったっけ", nil, "f1", true},
		{"a summary", "引っ越しの話どうなった？", nil, "s1", true},
		{"a private exchange, by default", "心療内科の先生に相談した話", nil, "p1", false},
		{"a private exchange, in a private conversation", "心療内科の先生に相談した話", private, "p1", true},
		{"an archived exchange", "バイト先の店長の話", nil, "a1", false},
		{"an archived exchange, asked for", "バイト先の店長の話", &retriever.Filter{}, "a1", true},
		{"facts only: no exchange", "鎌倉の大仏どうだったっけ", &retriever.Filter{Kinds: []episode.Kind{episode.KindFact}}, "k1", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := mem.Retrieve(ctx, retriever.Request{User: "haruka", Text: tt.text, Recent: []retriever.Message{}, Now: now, Filter: tt.filter})
			if err != nil {
				t.Fatal(err)
			}
			if hasHit(res, tt.want) != tt.found {
				t.Fatalf("%s found = %v, want %v (hits %v, trace %+v)", tt.want, !tt.found, tt.found, hitIDs(res), res.Trace)
			}
		})
	}
	u, err := mem.Unsearched(ctx, "haruka")
	if err != nil {
		t.Fatal(err)
	}
	if u.Sensitive != 1 || u.States != 1 || u.Kinds != 0 || !strings.HasPrefix(u.String(), "2 (") {
		t.Fatalf("Unsearched = %+v %q, want 1 private and 1 archived", u, u)
	}
	if u, _ := mem.Unsearched(ctx, "nobody"); u.Total() != 0 {
		t.Fatalf("Unsearched(nobody) = %+v", u)
	}
	if _, err := mem.Retrieve(ctx, retriever.Request{User: "haruka", Text: "x", Filter: &retriever.Filter{MaxSensitivity: 7}}); err == nil || !strings.Contains(err.Error(), "sensitivity 7 does not exist: want normal (0)") {
		t.Fatalf("a filter with sensitivity 7: %v, want an error naming it and the levels that exist", err)
	}
}

// TestNoRecentTurnsFindsLastWeek: without recent turns, the exchanges stored
// days ago are memories to find, not the conversation to drop as echoes;
// minutes after them they are the conversation.
func TestNoRecentTurnsFindsLastWeek(t *testing.T) {
	ctx := context.Background()
	mem, now := offPathMemory(t)
	res, err := mem.Retrieve(ctx, retriever.Request{User: "haruka", Text: "鎌倉の大仏どうだったっけ", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !hasHit(res, "k1") || res.Trace.Echoes != 0 || len(res.Trace.Queries) != 1 {
		t.Fatalf("days later, no recent turns: hits %v, echoes %d, queries %q; want k1 found, no stored context", hitIDs(res), res.Trace.Echoes, res.Trace.Queries)
	}
	soon := now.AddDate(0, 0, -3).Add(10 * time.Minute)
	res, err = mem.Retrieve(ctx, retriever.Request{User: "haruka", Text: "鎌倉の大仏、大きかったなあ", Now: soon})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trace.Queries) != 2 || !strings.Contains(res.Trace.Queries[1], "江ノ電") || hasHit(res, "k1") {
		t.Fatalf("minutes later: queries %q, hits %v; want the trip as the conversation, not injected back", res.Trace.Queries, hitIDs(res))
	}
}

// TestRequestInjectThreshold: a request's threshold replaces the preset's.
func TestRequestInjectThreshold(t *testing.T) {
	ctx := context.Background()
	mem, now := offPathMemory(t)
	req := retriever.Request{User: "haruka", Text: "鎌倉の大仏どうだったっけ", Recent: []retriever.Message{}, Now: now}
	base, err := mem.Retrieve(ctx, req)
	if err != nil || len(base.Hits) == 0 {
		t.Fatalf("base: %v, %v", hitIDs(base), err)
	}
	one := 1.0
	req.InjectThreshold = &one
	res, err := mem.Retrieve(ctx, req)
	if err != nil || len(res.Hits) != 0 || !strings.Contains(res.Trace.Declined, "below 1.00") {
		t.Fatalf("threshold 1: hits %v, declined %q, %v", hitIDs(res), res.Trace.Declined, err)
	}
	bad := 1.5
	req.InjectThreshold = &bad
	if _, err := mem.Retrieve(ctx, req); err == nil || !strings.Contains(err.Error(), "inject threshold 1.5") {
		t.Fatalf("threshold 1.5: %v", err)
	}
}

// TestLongMessageIsClipped: a message far over MaxMessageBytes is searched by
// its head, and the trace says so.
func TestLongMessageIsClipped(t *testing.T) {
	ctx := context.Background()
	mem, now := offPathMemory(t)
	text := "鎌倉の大仏どうだったっけ。" + strings.Repeat("あ", 4<<20)
	res, err := mem.Retrieve(ctx, retriever.Request{User: "haruka", Text: text, Recent: []retriever.Message{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Trace.Clipped, "message to 16384 bytes") {
		t.Fatalf("Trace.Clipped = %q", res.Trace.Clipped)
	}
}

// TestLanguageHint: a Japanese person's Han-only message read as Japanese
// words, not as Chinese bigrams that hold 京都 (Kyoto).
func TestLanguageHint(t *testing.T) {
	ctx := context.Background()
	mem, now := offPathMemory(t)
	for _, tt := range []struct {
		lang   lang.Language
		kyoto  bool
		tochou bool
	}{{lang.Other, true, true}, {lang.Chinese, true, true}, {lang.Japanese, false, true}} {
		res, err := mem.Retrieve(ctx, retriever.Request{User: "haruka", Text: "東京都庁", Recent: []retriever.Message{}, Now: now, Lang: tt.lang})
		if err != nil {
			t.Fatal(err)
		}
		m := strings.Join(res.Trace.BM25Match, " ")
		if strings.Contains(m, `"京都"`) != tt.kyoto || strings.Contains(m, `"都庁"`) != tt.tochou {
			t.Errorf("lang %q: BM25 %s; want 京都 %v, 都庁 %v", tt.lang, m, tt.kyoto, tt.tochou)
		}
	}
	if _, err := mem.Retrieve(ctx, retriever.Request{User: "haruka", Text: "x", Lang: "fr"}); err == nil || !strings.Contains(err.Error(), `lang "fr"`) {
		t.Fatalf("lang fr: %v", err)
	}
}
