package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/omoidehttp"
)

// offPathLines: a person's exchanges, a stated fact, a private exchange and
// an archived one; the trip to Kamakura days before the questions.
const offPathLines = `{"id": "e1", "user": "haruka", "user_text": "週末は友だちと映画を見に行ったよ", "reply_text": "何を見たの？", "occurred_at": "2026-02-10T12:00:00Z"}
{"id": "f1", "user": "haruka", "user_text": "好きな食べ物はカレーライス", "kind": "fact", "occurred_at": "2026-02-01T12:00:00Z"}
{"id": "p1", "user": "haruka", "user_text": "心療内科の先生に眠れないことを相談した", "reply_text": "話してくれてありがとう", "sensitivity": "private", "occurred_at": "2026-02-20T12:00:00Z"}
{"id": "a1", "user": "haruka", "user_text": "昔のバイト先の店長の話", "reply_text": "懐かしいね", "state": "archived", "occurred_at": "2026-02-21T12:00:00Z"}
{"id": "k1", "user": "haruka", "user_text": "鎌倉の大仏を見てきた！", "reply_text": "大きかった？", "occurred_at": "2026-02-25T12:00:00Z"}
{"id": "k2", "user": "haruka", "user_text": "帰りに江ノ電に乗ったよ", "reply_text": "海が見えるよね", "occurred_at": "2026-02-25T12:01:00Z"}
`

// TestCommandLineOffThePath: the command line as a new user steps off the
// demo: a fact and a private memory, no recent turns, a store that is a
// directory.
func TestCommandLineOffThePath(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	out := mustRun(t, "ingest", "-db", db, writeFile(t, dir, "off.jsonl", offPathLines))
	if !strings.Contains(out, "6 added") || !strings.Contains(out, "2 of the episodes read are not searched by default") {
		t.Fatalf("ingest: %q", out)
	}
	if out := mustRun(t, "stats", "-db", db); !strings.Contains(out, "unsearched     2 (1 more private than the filter admits, 1 in a state it leaves out)") {
		t.Fatalf("stats: %q", out)
	}
	now := "2026-03-01T12:00:00Z"
	for _, tt := range []struct {
		args []string
		want string // an external id among the hits, or "" for none
		not  string
	}{
		{[]string{"-no-context", "カレーライス好きだったっけ"}, "f1", ""},
		{[]string{"鎌倉の大仏どうだったっけ"}, "k1", ""}, // no recent turns, days later
		{[]string{"-no-context", "心療内科の先生に相談した話"}, "", "p1"},
		{[]string{"-no-context", "-max-sensitivity", "private", "心療内科の先生に相談した話"}, "p1", ""},
		{[]string{"-no-context", "-kinds", "fact", "鎌倉の大仏どうだったっけ"}, "", "k1"},
	} {
		args := append([]string{"retrieve", "-db", db, "-user", "haruka", "-now", now, "-clip", "0"}, tt.args...)
		out := mustRun(t, args...)
		if tt.want != "" && !strings.Contains(out, " "+tt.want+" ") || tt.not != "" && strings.Contains(out, " "+tt.not+" ") {
			t.Errorf("retrieve %q: want %q found, %q not:\n%s", tt.args, tt.want, tt.not, out)
		}
	}
	code, _, errOut := runCLI(t, "retrieve", "-db", db, "-user", "haruka", "-kinds", "memo", "x")
	if code != 2 || !strings.Contains(errOut, `-kinds: kind "memo"`) {
		t.Fatalf("-kinds memo: exit %d %q", code, errOut)
	}
	// One prefix per layer: the command, the store, the path once.
	code, _, errOut = runCLI(t, "ingest", "-db", dir, writeFile(t, dir, "one.jsonl", strings.SplitN(offPathLines, "\n", 2)[0]+"\n"))
	if code != 1 || strings.TrimSpace(errOut) != "omoide ingest: episode store: open "+dir+": is a directory" {
		t.Fatalf("ingest into a directory: exit %d %q", code, errOut)
	}
}

// TestServeOffThePath: over HTTP, a request sets what a library caller can
// (the filter within the server's bound, the inject threshold), a retried
// POST without an id is stored once while two equal records of one POST are
// two episodes, and an episode over the bound is a 400 naming it.
func TestServeOffThePath(t *testing.T) {
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "s.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	ts := httptest.NewServer(omoidehttp.NewHandler(mem, omoidehttp.Config{MaxRequestSensitivity: episode.SensitivityPrivate}))
	defer ts.Close()
	c := apiClient{t: t, base: ts.URL}
	var eps []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(offPathLines), "\n") {
		eps = append(eps, decodeLine(t, l))
	}
	if out := c.expect(200, "POST", "/v1/episodes", eps, false); out["unsearched"] != 2.0 {
		t.Fatalf("POST answered %v, want unsearched 2", out)
	}
	// A retry without an id (the same record: time included) is the same
	// episode; two equal records of one batch are two.
	retry := map[string]any{"user": "haruka", "user_text": "今日も疲れた", "reply_text": "おつかれさま", "occurred_at": "2026-02-27T21:00:00Z"}
	first := c.expect(200, "POST", "/v1/episodes", []any{retry}, false)["ids"]
	if again := c.expect(200, "POST", "/v1/episodes", []any{retry}, false)["ids"]; again.([]any)[0] != first.([]any)[0] {
		t.Fatalf("a retried POST without an id: ids %v then %v", first, again)
	}
	greeting := map[string]any{"user": "haruka", "user_text": "おはよう", "reply_text": "おはよう！", "occurred_at": "2026-02-28T08:00:00Z"}
	if ids := c.expect(200, "POST", "/v1/episodes", []any{greeting, greeting}, false)["ids"].([]any); len(ids) != 2 || ids[0] == ids[1] {
		t.Fatalf("two equal records in one POST: ids %v, want two", ids)
	}
	big := map[string]any{"user": "haruka", "user_text": strings.Repeat("長", 6000)}
	if out := c.expect(400, "POST", "/v1/episodes", []any{big}, false); !strings.Contains(out["error"].(string), "more than the 16384 bytes an episode holds") {
		t.Fatalf("an episode over the bound: %v", out)
	}
	ask := func(text string, extra map[string]any) map[string]any {
		body := map[string]any{"user": "haruka", "text": text, "now": "2026-03-01T12:00:00Z"}
		for k, v := range extra {
			body[k] = v
		}
		return body
	}
	found := func(out map[string]any, ext string) bool {
		for _, h := range hitsOf(t, out, "hits") {
			if h.Episode.ExternalID == ext {
				return true
			}
		}
		return false
	}
	if out := c.expect(200, "POST", "/v1/retrieve", ask("鎌倉の大仏どうだったっけ", nil), false); !found(out, "k1") {
		t.Errorf("no recent turns, days later: %v", out)
	}
	if out := c.expect(200, "POST", "/v1/retrieve", ask("カレーライス好きだったっけ", map[string]any{"recent": []any{}}), false); !found(out, "f1") {
		t.Errorf("a fact: %v", out)
	}
	q := "心療内科の先生に相談した話"
	if out := c.expect(200, "POST", "/v1/pack", ask(q, map[string]any{"recent": []any{}}), false); found(out, "p1") {
		t.Errorf("a private episode in an ordinary conversation: %v", out)
	}
	if out := c.expect(200, "POST", "/v1/pack", ask(q, map[string]any{"recent": []any{}, "filter": map[string]any{"max_sensitivity": "private"}}), false); !found(out, "p1") {
		t.Errorf("a private episode in a private conversation: %v", out)
	}
	if out := c.expect(400, "POST", "/v1/pack", ask(q, map[string]any{"filter": map[string]any{"max_sensitivity": "secret"}}), false); !strings.Contains(out["error"].(string), `above what this server returns, "private"`) {
		t.Errorf("secret beyond the server's bound: %v", out)
	}
	if out := c.expect(200, "POST", "/v1/retrieve", ask("鎌倉の大仏どうだったっけ", map[string]any{"recent": []any{}, "inject_threshold": 1}), false); found(out, "k1") {
		t.Errorf("inject_threshold 1 injected: %v", out)
	}
	if out := c.expect(200, "POST", "/v1/retrieve", ask("東京都庁", map[string]any{"recent": []any{}, "lang": "ja-JP"}), false); strings.Contains(fmt.Sprint(out["trace"].(map[string]any)["bm25_match"]), "京都") {
		t.Errorf(`"lang": "ja-JP" still searched 京都: %v`, out["trace"])
	}
	for _, bad := range []map[string]any{{"lang": "fr"}, {"inject_threshold": 2}, {"filter": map[string]any{"max_age_days": -1}}, {"filter": map[string]any{"kinds": []any{"memo"}}}} {
		c.expect(400, "POST", "/v1/retrieve", ask("x", bad), false)
	}
}

func decodeLine(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
