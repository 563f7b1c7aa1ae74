package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/cmd/internal/cli"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// clearEnv keeps the environment of the machine out of the tests.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{envDB, cli.EnvEmbedder, cli.EnvEndpoint, cli.EnvModel, cli.EnvDim, envPreset, envToken, envNodes} {
		t.Setenv(k, "")
	}
}

// runCLI runs the command line and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = program.Run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// mustRun runs the command line and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("omoide %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// testEpisodes is a small dataset: two people who both talk about ramen.
const testEpisodes = `{"id": "haruka:r1", "user": "haruka", "user_text": "中野の麺屋こはくで味噌バターラーメンを食べた", "reply_text": "味噌バター、濃厚でおいしそう！", "occurred_at": "2025-06-01T12:30:00Z"}
{"id": "haruka:r2", "user": "haruka", "user_text": "整形外科で膝の外側の腸脛靭帯炎って言われた", "reply_text": "無理せずストレッチしてね", "occurred_at": "2025-06-05T10:00:00Z", "source": "chat"}

{"id": "haruka:r3", "user": "haruka", "user_text": "猫のこむぎがキャリーを見て逃げた", "reply_text": "猫は察しがいいよね", "occurred_at": "2025-06-10T09:00:00Z"}
{"id": "kenta:r1", "user": "kenta", "user_text": "博多で豚骨ラーメンを食べた。替え玉した", "reply_text": "替え玉は外せないね！", "occurred_at": "2025-06-02T12:00:00Z"}
{"id": "kenta:r2", "user": "kenta", "user_text": "週末はキャンプに行く予定", "reply_text": "晴れるといいね", "occurred_at": "2025-06-03T12:00:00Z"}
`

const testNow = "2025-07-01T00:00:00Z"

// newTestStore writes the dataset and ingests it into a new store; it
// returns the store's path and the dataset's.
func newTestStore(t *testing.T) (db, jsonl string) {
	t.Helper()
	clearEnv(t)
	dir := t.TempDir()
	db = filepath.Join(dir, "test.db")
	jsonl = writeFile(t, dir, "episodes.jsonl", testEpisodes)
	out := mustRun(t, "ingest", "-db", db, jsonl)
	if !strings.Contains(out, "5 episodes read, 5 added, 0 already present, 0 failed lines") {
		t.Fatalf("first ingest: %q", out)
	}
	return db, jsonl
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIngestJSONLIsIdempotent(t *testing.T) {
	db, jsonl := newTestStore(t)
	dir := filepath.Dir(jsonl)

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(testEpisodes))
	zw.Close()
	gzPath := writeFile(t, dir, "copy.jsonl.gz", gz.String())

	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"same file", []string{jsonl}, ""},
		{"gzip", []string{gzPath}, ""},
		{"stdin, sniffed", []string{"-"}, testEpisodes},
		{"stdin, gzip", []string{"-"}, gz.String()},
		{"flags after the file, small batches", []string{jsonl, "-batch", "2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdin = strings.NewReader(tc.stdin)
			defer func() { stdin = os.Stdin }()
			out := mustRun(t, append([]string{"ingest", "-db", db}, tc.args...)...)
			if !strings.Contains(out, "5 episodes read, 0 added, 5 already present") {
				t.Errorf("re-ingest: %q, want 0 added, 5 already present", out)
			}
		})
	}
	var st wire.Stats
	if err := json.Unmarshal([]byte(mustRun(t, "stats", "-db", db, "-json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Episodes != 5 || st.Users != 2 || st.FTSRows != 5 || st.VectorRows != 5 || !st.Consistent {
		t.Errorf("stats after re-ingests: %+v", st)
	}
}

func TestIngestBadLines(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	lines := strings.Split(strings.TrimSpace(testEpisodes), "\n")
	bad := []string{
		lines[0],
		`{"id": "x:1", "user": "haruka", "user_txt": "typo", "occurred_at": "2025-06-01T00:00:00Z"}`,
		lines[1],
		`{"id": "x:2", "user": "", "user_text": "no user", "occurred_at": "2025-06-01T00:00:00Z"}`,
		`not json`,
		`{"user": "haruka", "user_text": "no id", "occurred_at": "2025-06-01T00:00:00Z"}`,
		`{"id": "x:3", "user": "haruka", "user_text": "no time"}`,
		`{"id": "x:4", "user": "haruka", "user_text": "bad state", "occurred_at": "2025-06-01T00:00:00Z", "state": "lost"}`,
		`{"id": "x:5", "user": "haruka", "user_text": "` + strings.Repeat("長", 6000) + `", "occurred_at": "2025-06-01T00:00:00Z"}`,
		`{"id": "x:6", "user": "haruka", "user_text": "` + strings.Repeat("巨大", 2<<20) + `", "occurred_at": "2025-06-01T00:00:00Z"}`,
		lines[3],
	}
	path := writeFile(t, dir, "bad.jsonl", strings.Join(bad, "\n")+"\n")

	t.Run("stops at the first bad line", func(t *testing.T) {
		db := filepath.Join(dir, "stop.db")
		code, out, errOut := runCLI(t, "ingest", "-db", db, path)
		if code != 1 {
			t.Fatalf("exit %d, want 1; stderr %q", code, errOut)
		}
		if !strings.Contains(errOut, "bad.jsonl:2:") || !strings.Contains(errOut, `unknown field "user_txt"`) || !strings.Contains(errOut, "-skip-bad") {
			t.Errorf("stderr %q does not name line 2 and its problem", errOut)
		}
		// What came before the bad line is kept.
		if !strings.Contains(out, "1 episodes read, 1 added") {
			t.Errorf("stdout %q: want the line before the bad one stored", out)
		}
	})
	t.Run("-skip-bad counts and goes on", func(t *testing.T) {
		db := filepath.Join(dir, "skip.db")
		code, out, errOut := runCLI(t, "ingest", "-db", db, "-skip-bad", path)
		if code != 1 || !strings.Contains(errOut, "8 bad lines skipped (-skip-bad); the others are stored") {
			t.Fatalf("exit %d, want 1 saying how many lines were skipped; stderr %q", code, errOut)
		}
		if !strings.Contains(out, "3 episodes read, 3 added, 0 already present, 8 failed lines") {
			t.Errorf("stdout %q", out)
		}
		for _, want := range []string{"bad.jsonl:2:", "bad.jsonl:4: user is empty", "bad.jsonl:5:", "bad.jsonl:6: id is missing",
			"bad.jsonl:7: occurred_at is not set", `bad.jsonl:8: state: want a number or one of archived=3, consolidated=2, raw=0, validated=1, got "lost"`,
			"bad.jsonl:9: episode too long: user text and reply text are 18000 bytes together, more than the 16384",
			"bad.jsonl:10: line is 12582999 bytes, longer than 196608"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
		}
	})
}

const testTranscript = `# user: yui
# 日記

@ 2025-06-01 21:30 +09:00
> 昨日、駅前のラーメン屋に行ったよ
> 味噌バターが最高だった
< いいね！今度はどのお店に行くの？

@ 2025-06-02T08:00:00+09:00 [reminder]
> 今日は15時から歯医者の予約があります

@ 2025-06-02 08:00 +09:00
< おはよう！歯医者がんばってね
`

func TestIngestTranscript(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	path := writeFile(t, dir, "yui.txt", testTranscript)
	out := mustRun(t, "ingest", "-db", db, path)
	if !strings.Contains(out, "3 episodes read, 3 added, 0 already present") {
		t.Fatalf("ingest: %q", out)
	}
	out = mustRun(t, "ingest", "-db", db, path)
	if !strings.Contains(out, "3 episodes read, 0 added, 3 already present") {
		t.Fatalf("re-ingest: %q", out)
	}
	// Appended blocks are the only ones added.
	appended := writeFile(t, dir, "more.txt", testTranscript+"\n@ 2025-06-03 20:00 +09:00\n> 歯医者終わった\n< おつかれさま！\n")
	if out := mustRun(t, "ingest", "-db", db, appended); !strings.Contains(out, "4 episodes read, 1 added, 3 already present") {
		t.Fatalf("ingest with a block appended: %q", out)
	}
	out = mustRun(t, "retrieve", "-db", db, "-user", "yui", "-now", testNow, "-no-context", "-json", "駅前のラーメン屋")
	var res retriever.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Episode.ExternalID != "yui:2025-06-01T12:30:00Z:1" {
		t.Fatalf("first hit is not the ramen block: %+v", res.Hits)
	}
	if res.Hits[0].Episode.UserText != "昨日、駅前のラーメン屋に行ったよ\n味噌バターが最高だった" {
		t.Errorf("multi-line message: %q", res.Hits[0].Episode.UserText)
	}
	eps := storedEpisodes(t, db, "yui")
	want := []struct{ ext, source, user, reply string }{
		{"yui:2025-06-01T12:30:00Z:1", "chat", "昨日、駅前のラーメン屋に行ったよ\n味噌バターが最高だった", "いいね！今度はどのお店に行くの？"},
		{"yui:2025-06-01T23:00:00Z:1", "reminder", "今日は15時から歯医者の予約があります", ""},
		{"yui:2025-06-01T23:00:00Z:2", "proactive", "", "おはよう！歯医者がんばってね"},
		{"yui:2025-06-03T11:00:00Z:1", "chat", "歯医者終わった", "おつかれさま！"},
	}
	if len(eps) != len(want) {
		t.Fatalf("%d episodes stored, want %d: %+v", len(eps), len(want), eps)
	}
	for i, w := range want {
		e := eps[i]
		if e.ExternalID != w.ext || e.Source != w.source || e.UserText != w.user || e.ReplyText != w.reply {
			t.Errorf("episode %d: %q %q %q %q, want %+v", i, e.ExternalID, e.Source, e.UserText, e.ReplyText, w)
		}
	}
}

// storedEpisodes returns the user's episodes, oldest first, read from the
// store at db.
func storedEpisodes(t *testing.T, db, user string) []episode.Episode {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eps, err := st.Recent(ctx, user, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

func TestRetrieve(t *testing.T) {
	db, _ := newTestStore(t)
	dir := t.TempDir()
	ctxFile := writeFile(t, dir, "ctx.json", `[{"role": "user", "content": "お腹すいた"}, {"role": "assistant", "content": "何食べたい？"}]`)
	base := []string{"retrieve", "-db", db, "-user", "haruka", "-now", testNow, "-tz", "Asia/Tokyo"}

	t.Run("text", func(t *testing.T) {
		out := mustRun(t, append(base, "-no-context", "麺屋こはくの味噌バターラーメン")...)
		for _, want := range []string{"haruka:r1", "relevance", "rrf_norm", "2025-06-01", "trace: prepare", "picked"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "kenta:") {
			t.Errorf("output holds another person's episode:\n%s", out)
		}
	})
	t.Run("json with -context and candidates", func(t *testing.T) {
		out := mustRun(t, append(base, "-context", ctxFile, "-candidates", "-json", "-text", "ラーメン食べたい")...)
		var res retriever.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(res.Hits) == 0 || len(res.Candidates) < len(res.Hits) {
			t.Fatalf("hits %d, candidates %d", len(res.Hits), len(res.Candidates))
		}
		if res.Hits[0].Episode.ExternalID != "haruka:r1" || res.Hits[0].Relevance != rerank.High || res.Hits[0].RRFNorm <= 0 {
			t.Errorf("first hit %+v", res.Hits[0])
		}
		for _, h := range append(res.Hits, res.Candidates...) {
			if h.Episode.User != "haruka" {
				t.Errorf("hit of user %q", h.Episode.User)
			}
		}
		if len(res.Trace.Queries) != 2 || !strings.Contains(res.Trace.Queries[1], "お腹すいた") || res.Trace.Total <= 0 {
			t.Errorf("trace %+v: want two queries, the second with the context", res.Trace)
		}
	})
	t.Run("pack", func(t *testing.T) {
		out := mustRun(t, append(base, "-recent", "user:お腹すいた", "-recent", "assistant:何食べたい？", "-pack", "麺屋こはくの味噌バターラーメン")...)
		if !strings.HasPrefix(out, "[EPISODE_EVIDENCE]\n") || !strings.Contains(out, "味噌バター") || strings.Contains(out, "→ 関連") {
			t.Errorf("pack (the default preset: no reasons):\n%s", out)
		}
		out = mustRun(t, append(base, "-no-context", "-pack", "-reasons", "麺屋こはくの味噌バターラーメン")...)
		if !strings.Contains(out, "→ 関連: relevance model: p=0.9") {
			t.Errorf("pack -reasons:\n%s", out)
		}
		out = mustRun(t, append(base, "-no-context", "-pack", "-strategy", "summarize", "-json", "麺屋こはくの味噌バターラーメン")...)
		var p wire.Pack
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		if !p.Inject || !strings.Contains(p.Section, "要点: ") || len(p.Hits) == 0 {
			t.Errorf("pack json: %+v", p)
		}
	})
	t.Run("max age", func(t *testing.T) {
		// The episode of 2025-06-01 is 30 days before -now: -max-age-days 7
		// hides it, the default (any age) finds it.
		hits := func(args ...string) int {
			var res retriever.Result
			if err := json.Unmarshal([]byte(mustRun(t, append(append(base, "-no-context", "-json"), args...)...)), &res); err != nil {
				t.Fatal(err)
			}
			return len(res.Hits)
		}
		if n := hits("麺屋こはくの味噌バターラーメン"); n == 0 {
			t.Error("no hit with the default (no age limit)")
		}
		if n := hits("-max-age-days", "7", "麺屋こはくの味噌バターラーメン"); n != 0 {
			t.Errorf("-max-age-days 7: %d hits, want none", n)
		}
		// Two years on, the reference preset's 365 days hide it; -max-age-days
		// 0, given, searches any age (a flag not given is the preset's).
		later := []string{"-now", "2027-07-01T12:00:00Z", "-preset", "reference"}
		if n := hits(append(later, "麺屋こはくの味噌バターラーメン")...); n != 0 {
			t.Errorf("reference preset two years on: %d hits, want none", n)
		}
		if n := hits(append(later, "-max-age-days", "0", "麺屋こはくの味噌バターラーメン")...); n == 0 {
			t.Error("-max-age-days 0: no hit, want any age searched")
		}
	})
	t.Run("inject threshold and model", func(t *testing.T) {
		hits := func(args ...string) []retriever.Hit {
			var res retriever.Result
			if err := json.Unmarshal([]byte(mustRun(t, append(append(base, "-no-context", "-json"), args...)...)), &res); err != nil {
				t.Fatal(err)
			}
			return res.Hits
		}
		const msg = "麺屋こはくの味噌バターラーメン"
		def := hits(msg)
		if len(def) == 0 || def[0].Probability <= 0 || def[0].Probability >= 1 {
			t.Fatalf("default: hits %+v, want some with their probability", def)
		}
		if got := hits("-inject-threshold", "1", msg); len(got) != 0 {
			t.Errorf("-inject-threshold 1: %d hits, want none", len(got))
		}
		// The built-in model from a file decides alike.
		m, err := rerank.DefaultModel()
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "model.json")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := hits("-relevance-model", file, msg); len(got) != len(def) || got[0].Probability != def[0].Probability {
			t.Errorf("-relevance-model (the built-in one): %+v, want %+v", got, def)
		}
		if err := os.WriteFile(file, []byte(`{"features": ["final"]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCLI(t, append(append(base, "-no-context", "-relevance-model", file), msg)...)
		if code != 1 || !strings.Contains(errOut, "-relevance-model "+file) || !strings.Contains(errOut, "refit") {
			t.Errorf("a model of other features: exit %d, %q", code, errOut)
		}
		// A truncated model file, or one that is no model at all, is refused
		// naming the file.
		for name, content := range map[string][]byte{"truncated": b[:len(b)/2], "foreign": []byte("OMOIDEWV\x01\x00binary")} {
			if err := os.WriteFile(file, content, 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errOut := runCLI(t, append(append(base, "-no-context", "-relevance-model", file), msg)...)
			if code != 1 || !strings.Contains(errOut, "-relevance-model "+file) {
				t.Errorf("a %s model file: exit %d, %q", name, code, errOut)
			}
		}
		// A model fitted for another embedder is refused, naming both.
		other := *m
		other.About = map[string]any{"embedder": "openai:bge-m3/1024"}
		if b, err = other.Encode(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut = runCLI(t, append(append(base, "-no-context", "-relevance-model", file), msg)...)
		if code != 1 || !strings.Contains(errOut, "-relevance-model "+file) || !strings.Contains(errOut, "openai:bge-m3/1024") || !strings.Contains(errOut, m.FittedFor()) {
			t.Errorf("a model fitted for another embedder: exit %d, %q", code, errOut)
		}
	})
	t.Run("unknown person", func(t *testing.T) {
		out := mustRun(t, "retrieve", "-db", db, "-user", "nobody", "-now", testNow, "ラーメン")
		if !strings.Contains(out, "nobody: 0 episodes") {
			t.Errorf("%q", out)
		}
	})
}

func TestStatsDeleteForget(t *testing.T) {
	db, _ := newTestStore(t)
	out := mustRun(t, "stats", "-db", db)
	for _, want := range []string{fmt.Sprintf("schema         %d", sqlite.SchemaVersion), "embedder       hash-v1+w/256", "analyzer       cjk", "episodes       5", "users          2",
		"fts rows       5", "vector rows    5", "rows           consistent", "file size"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}

	var res retriever.Result
	json.Unmarshal([]byte(mustRun(t, "retrieve", "-db", db, "-user", "haruka", "-now", testNow, "-no-context", "-json", "猫のこむぎ")), &res)
	if len(res.Hits) == 0 || res.Hits[0].Episode.ExternalID != "haruka:r3" {
		t.Fatalf("hits %+v", res.Hits)
	}
	id := res.Hits[0].Episode.ID

	if out := mustRun(t, "delete", "-db", db, "-id", itoa(id)); !strings.Contains(out, "1 episodes deleted") || !strings.Contains(out, "haruka:r3") {
		t.Errorf("delete -id: %q", out)
	}
	code, _, errOut := runCLI(t, "delete", "-db", db, "-id", itoa(id))
	if code != 1 || !strings.Contains(errOut, "no episode with id "+itoa(id)) {
		t.Errorf("delete again: exit %d, %q", code, errOut)
	}
	if out := mustRun(t, "delete", "-db", db, "-external-id", "haruka:r2", "-user", "haruka"); !strings.Contains(out, "1 episodes deleted") {
		t.Errorf("delete -external-id: %q", out)
	}
	code, _, errOut = runCLI(t, "delete", "-db", db, "-external-id", "haruka:r2", "-user", "haruka")
	if code != 1 || !strings.Contains(errOut, `no episode of user "haruka" has external id "haruka:r2"`) {
		t.Errorf("delete a deleted external id: exit %d, %q", code, errOut)
	}
	if out := mustRun(t, "forget", "-db", db, "-user", "kenta"); !strings.Contains(out, `forgot "kenta": 2 episodes removed, `) || !strings.Contains(out, "bytes freed") {
		t.Errorf("forget: %q", out)
	}
	if out := mustRun(t, "forget", "-db", db, "-user", "kenta"); !strings.Contains(out, "0 episodes removed") {
		t.Errorf("forget again: %q", out)
	}
	var st wire.Stats
	json.Unmarshal([]byte(mustRun(t, "stats", "-db", db, "-json")), &st)
	if st.Episodes != 1 || st.Users != 1 || st.FTSRows != 1 || st.VectorRows != 1 || !st.Consistent {
		t.Errorf("stats after deletes: %+v", st)
	}

	// A text index row lost behind the store's back.
	raw, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DELETE FROM episodes_fts`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if out := mustRun(t, "stats", "-db", db); !strings.Contains(out, "fts rows       0") || !strings.Contains(out, "inconsistent") {
		t.Errorf("stats of a broken store:\n%s", out)
	}
	json.Unmarshal([]byte(mustRun(t, "stats", "-db", db, "-json")), &st)
	if st.Consistent {
		t.Errorf("stats -json of a broken store: %+v", st)
	}
}

// TestExportForgetIngest: export, forget and ingest give a person back as
// they were: texts, times, kinds, states, sensitivity, source and external
// ids; the other person is untouched.
func TestExportForgetIngest(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	rich := testEpisodes + `{"id": "haruka:f1", "user": "haruka", "user_text": "誕生日は3月3日", "reply_text": "覚えておくね", "occurred_at": "2024-03-03T09:00:00Z", "kind": "fact", "state": "validated", "sensitivity": "private", "source": "notification"}
{"id": "haruka:s1", "user": "haruka", "user_text": "", "reply_text": "要約: 膝の治療が続いている", "occurred_at": "2025-06-20T00:00:00Z", "kind": 3, "state": 2, "sensitivity": 2, "source": "reminder"}
`
	mustRun(t, "ingest", "-db", db, writeFile(t, dir, "in.jsonl", rich))
	first := filepath.Join(dir, "haruka.jsonl")
	mustRun(t, "export", "-db", db, "-user", "haruka", "-o", first)
	exported, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(exported), "\n"); n != 5 {
		t.Fatalf("exported %d lines, want haruka's 5:\n%s", n, exported)
	}
	if out := mustRun(t, "forget", "-db", db, "-user", "haruka"); !strings.Contains(out, "5 episodes removed") {
		t.Fatalf("forget: %q", out)
	}
	if out := mustRun(t, "ingest", "-db", db, first); !strings.Contains(out, "5 added") {
		t.Fatalf("ingest of the export: %q", out)
	}
	again := mustRun(t, "export", "-db", db, "-user", "haruka")
	if again != string(exported) {
		t.Errorf("export after the round trip differs:\n%s\nwant:\n%s", again, exported)
	}
	for _, want := range []string{`"kind":"fact"`, `"state":"validated"`, `"sensitivity":"private"`, `"source":"notification"`, `"occurred_at":"2024-03-03T09:00:00Z"`, `"id":"haruka:s1"`} {
		if !strings.Contains(again, want) {
			t.Errorf("the round trip lost %s:\n%s", want, again)
		}
	}
	if out := mustRun(t, "export", "-db", db, "-user", "kenta"); strings.Count(out, "\n") != 2 {
		t.Errorf("kenta's export: %q", out)
	}
}

// TestIngestUpdate: a line whose user and id are stored with other content
// is an error naming it; with -update it replaces the stored episode.
func TestIngestUpdate(t *testing.T) {
	db, _ := newTestStore(t)
	dir := t.TempDir()
	changed := writeFile(t, dir, "changed.jsonl", `{"id": "haruka:r3", "user": "haruka", "user_text": "猫のこむぎが爪とぎを覚えた", "reply_text": "えらい！", "occurred_at": "2025-06-10T09:00:00Z"}
`)
	code, _, errOut := runCLI(t, "ingest", "-db", db, changed)
	if code != 1 || !strings.Contains(errOut, "haruka:r3") || !strings.Contains(errOut, "other content") {
		t.Fatalf("ingest of other content: exit %d, %q", code, errOut)
	}
	if out := mustRun(t, "ingest", "-db", db, "-update", changed); !strings.Contains(out, "0 added, 1 replaced, 0 already present") {
		t.Errorf("ingest -update reports %q, want the episode counted as replaced", out)
	}
	if out := mustRun(t, "ingest", "-db", db, "-update", changed); !strings.Contains(out, "0 added, 0 replaced, 1 already present") {
		t.Errorf("ingest -update again reports %q, want it present", out)
	}
	out := mustRun(t, "export", "-db", db, "-user", "haruka")
	if !strings.Contains(out, "爪とぎ") || strings.Contains(out, "キャリー") || strings.Count(out, "\n") != 3 {
		t.Errorf("after -update:\n%s", out)
	}
}

// TestReadOnlyFlag: -readonly retrieves and reports from a store it never
// writes, and a write through it says why it cannot.
func TestReadOnlyFlag(t *testing.T) {
	db, jsonl := newTestStore(t)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	var res retriever.Result
	if err := json.Unmarshal([]byte(mustRun(t, "retrieve", "-db", db, "-readonly", "-user", "haruka", "-now", testNow, "-no-context", "-json", "猫のこむぎ")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Episode.ExternalID != "haruka:r3" {
		t.Fatalf("retrieve -readonly: hits %+v", res.Hits)
	}
	if out := mustRun(t, "stats", "-db", db, "-readonly"); !strings.Contains(out, "episodes       5") {
		t.Errorf("stats -readonly:\n%s", out)
	}
	mustRun(t, "check", "-db", db, "-readonly")
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if out := mustRun(t, "backup", "-db", db, "-readonly", "-o", copyPath); !strings.Contains(out, "backup: "+copyPath) {
		t.Errorf("backup -readonly: %q", out)
	}
	if out := mustRun(t, "check", "-db", copyPath); !strings.Contains(out, "ok") && !strings.Contains(out, "consistent") {
		t.Errorf("check of the backup: %q", out)
	}
	if code, _, errOut := runCLI(t, "backup", "-db", db, "-readonly", "-o", copyPath); code != 1 || !strings.Contains(errOut, "exists") {
		t.Errorf("backup over a file: exit %d, %q", code, errOut)
	}
	for _, args := range [][]string{{"forget", "-db", db, "-readonly", "-user", "kenta"}, {"ingest", "-db", db, "-readonly", jsonl}} {
		code, _, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, "read-only") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	after, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the store changed under -readonly")
	}
}

func TestReembed(t *testing.T) {
	db, _ := newTestStore(t)
	out := mustRun(t, "reembed", "-db", db, "-dim", "64")
	if !strings.Contains(out, "re-embedded 5 episodes: hash-v1+w/256 -> hash-v1+w/64") {
		t.Errorf("reembed: %q", out)
	}
	out = mustRun(t, "retrieve", "-db", db, "-dim", "64", "-user", "haruka", "-now", testNow, "-no-context", "麺屋こはくの味噌バターラーメン")
	if !strings.Contains(out, "haruka:r1") {
		t.Errorf("retrieve with the new dimension:\n%s", out)
	}
	code, _, errOut := runCLI(t, "retrieve", "-db", db, "-user", "haruka", "-now", testNow, "ラーメン")
	if code != 1 || !strings.Contains(errOut, "hash-v1+w/64, not hash-v1+w/256") || !strings.Contains(errOut, "-embedder hash -dim 64") {
		t.Errorf("retrieve with the old dimension: exit %d, stderr %q", code, errOut)
	}
	// Commands that embed nothing open the store whatever the flags say.
	if out := mustRun(t, "stats", "-db", db); !strings.Contains(out, "hash-v1+w/64") {
		t.Errorf("stats: %q", out)
	}
}

// TestRestore: a backup taken, a person forgotten, the backup restored:
// the person stays forgotten, to the byte, and the other is whole.
func TestRestore(t *testing.T) {
	db, _ := newTestStore(t)
	bak := filepath.Join(t.TempDir(), "backup.db")
	mustRun(t, "backup", "-db", db, "-o", bak)
	if out := mustRun(t, "forget", "-db", db, "-user", "kenta"); !strings.Contains(out, "drops them within 27 h") || !strings.Contains(out, "omoide restore") {
		t.Errorf("forget does not say what a copy keeps: %q", out)
	}
	mustRun(t, "delete", "-db", db, "-external-id", "haruka:r2", "-user", "haruka")
	out := mustRun(t, "restore", "-db", db, "-from", bak)
	if !strings.Contains(out, "2 episodes of 1 people; 1 people forgotten again, 1 episodes deleted again (of 2 erasures on record)") {
		t.Errorf("restore: %q", out)
	}
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"kenta", "豚骨", "キャンプ", "腸脛靭帯炎"} {
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("the restored store holds %q", secret)
		}
	}
	out = mustRun(t, "retrieve", "-db", db, "-user", "haruka", "-now", testNow, "-no-context", "-json", "麺屋こはくの味噌バターラーメン")
	if !strings.Contains(out, "haruka:r1") {
		t.Errorf("haruka after the restore:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "restore", "-db", db); code != 2 || !strings.Contains(errOut, "-from is required") {
		t.Errorf("restore without -from: exit %d, %q", code, errOut)
	}
	notes := writeFile(t, t.TempDir(), "notes.txt", strings.Repeat("not a store\n", 100))
	if code, _, errOut := runCLI(t, "restore", "-db", db, "-from", notes); code != 1 || !strings.Contains(errOut, notes+" is not an omoide store: not an SQLite database") || strings.Contains(errOut, ".restoring") {
		t.Errorf("restore from a text file: exit %d, %q", code, errOut)
	}
}

// TestStaticEmbedder moves a store to a static model (the tiny fixture of
// embed/testdata/static) with reembed, retrieves with it, and names the
// flags when the model is not given.
func TestStaticEmbedder(t *testing.T) {
	db, _ := newTestStore(t)
	model := filepath.Join("..", "..", "embed", "testdata", "static", "st-ja")
	static := []string{"-embedder", "static", "-model", model, "-dim", "32"}
	out := mustRun(t, append([]string{"reembed", "-db", db}, static...)...)
	if !strings.Contains(out, "re-embedded 5 episodes: hash-v1+w/256 -> static:") || !strings.Contains(out, "/32") {
		t.Errorf("reembed: %q", out)
	}
	out = mustRun(t, append([]string{"retrieve", "-db", db, "-user", "haruka", "-now", testNow, "-no-context", "-json", "麺屋こはくの味噌バターラーメン"}, static...)...)
	var res retriever.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Trace.KNNHits) == 0 || res.Trace.KNNHits[0] == 0 || res.Trace.Degraded != "" || !strings.HasPrefix(res.Trace.Decision, "semantic-embedder") {
		t.Errorf("retrieve with the static model: trace %+v", res.Trace)
	}
	code, _, errOut := runCLI(t, "retrieve", "-db", db, "-user", "haruka", "-now", testNow, "ラーメン")
	if code != 1 || !strings.Contains(errOut, "-embedder static -model DIR -dim 32") {
		t.Errorf("retrieve with the hash embedder: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "retrieve", "-db", db, "-user", "haruka", "-embedder", "static", "-model", t.TempDir(), "ラーメン")
	if code != 1 || !strings.Contains(errOut, "not a static embedding model") {
		t.Errorf("a folder without a model (a failure, not a usage error): exit %d, stderr %q", code, errOut)
	}
}

func TestUsageErrors(t *testing.T) {
	db, _ := newTestStore(t)
	missing := filepath.Join(t.TempDir(), "missing.db")
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{}, "usage: omoide <command>"},
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"ingest", "-db", db}, "no input"},
		{[]string{"ingest", "-db", db, "-nope", "x.jsonl"}, "flag provided but not defined: -nope"},
		{[]string{"ingest", "-db", db, "x.csv"}, "cannot tell the format"},
		{[]string{"ingest", "-db", db, "-format", "csv", "x"}, `-format "csv"`},
		{[]string{"ingest", "-db", db, "-batch", "0", "x.jsonl"}, "-batch 0"},
		{[]string{"ingest", "-db", db, "-tz", "Mars/Olympus", "x.txt"}, "-tz"},
		{[]string{"retrieve", "-db", db, "ラーメン"}, "-user is required"},
		{[]string{"retrieve", "-db", db, "-user", "haruka"}, "no message"},
		{[]string{"retrieve", "-db", db, "-user", "haruka", "a", "b"}, `unexpected argument "b"`},
		{[]string{"retrieve", "-db", db, "-user", "haruka", "-text", "a", "b"}, "given twice"},
		{[]string{"retrieve", "-db", db, "-user", "haruka", "-now", "yesterday", "a"}, `-now "yesterday"`},
		{[]string{"retrieve", "-db", db, "-user", "haruka", "-recent", "bot:hi", "a"}, `"bot:hi"`},
		{[]string{"retrieve", "-db", db, "-user", "haruka", "-recent", "user:hi", "-no-context", "a"}, "give one of"},
		{[]string{"retrieve", "-db", db, "-user", "haruka", "-strategy", "all", "-pack", "a"}, "-strategy"},
		{[]string{"retrieve", "-db", db, "-user", "haruka", "-max-age-days", "-3", "a"}, "-max-age-days"},
		{[]string{"retrieve", "-db", db, "-user", "haruka", "-inject-threshold", "1.5", "a"}, "-inject-threshold 1.5"},
		{[]string{"retrieve", "-db", db, "-user", "haruka", "-preset", "reference", "-inject-threshold", "0.5", "a"}, "decides by rules"},
		{[]string{"retrieve", "-db", db, "-user", "haruka", "-context", "/nonexistent.json", "a"}, "-context"},
		{[]string{"retrieve", "-db", db, "-embedder", "magic", "-user", "haruka", "a"}, `-embedder "magic"`},
		{[]string{"retrieve", "-db", db, "-embedder", "openai", "-user", "haruka", "a"}, "needs -model"},
		{[]string{"retrieve", "-db", db, "-embedder", "openai", "-model", "m", "-user", "haruka", "a"}, "needs -dim"},
		{[]string{"retrieve", "-db", db, "-model", "m", "-user", "haruka", "a"}, "-model is not for -embedder hash"},
		{[]string{"retrieve", "-db", db, "-preset", "best", "-user", "haruka", "a"}, `-preset "best"`},
		{[]string{"retrieve", "-db", db, "-dim", "-3", "-user", "haruka", "a"}, "-dim -3"},
		{[]string{"delete", "-db", db}, "nothing to delete"},
		{[]string{"delete", "-db", db, "-id", "x"}, "not an episode id"},
		{[]string{"delete", "-db", db, "-external-id", "a"}, "needs -user"},
		{[]string{"delete", "-db", db, "-id", "1", "-external-id", "a", "-user", "u"}, "not both"},
		{[]string{"forget", "-db", db}, "-user is required"},
		{[]string{"stats", "-db", db, "extra"}, `unexpected argument "extra"`},
		{[]string{"reembed", "-db", db, "-batch", "-1"}, "-batch -1"},
		{[]string{"serve", "-db", db, "-max-body", "lots"}, `"lots" is not a positive size`},
		{[]string{"serve", "-db", db, "-log-level", "loud"}, "-log-level"},
		{[]string{"serve", "-db", db, "-timeout", "0s"}, "must be positive"},
		{[]string{"stats", "-db", missing, "-dim", "x"}, "invalid value"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr %q", code, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q lacks %q", errOut, tc.want)
			}
		})
	}
	t.Run("OMOIDE_DIM", func(t *testing.T) {
		t.Setenv(cli.EnvDim, "many")
		if code, _, errOut := runCLI(t, "stats", "-db", db); code != 2 || !strings.Contains(errOut, "OMOIDE_DIM") {
			t.Errorf("exit %d, %q", code, errOut)
		}
		if code, _, errOut := runCLI(t, "stats", "-db", db, "-dim", "256"); code != 0 {
			t.Errorf("-dim overrides a bad OMOIDE_DIM: exit %d, %q", code, errOut)
		}
	})
	t.Run("environment fallbacks", func(t *testing.T) {
		t.Setenv(envDB, db)
		if out := mustRun(t, "stats"); !strings.Contains(out, "episodes       5") {
			t.Errorf("OMOIDE_DB: %q", out)
		}
	})
	// Failures that are not usage errors exit 1.
	for _, args := range [][]string{
		{"stats", "-db", missing},
		{"retrieve", "-db", missing, "-user", "u", "a"},
		{"ingest", "-db", db, filepath.Join(t.TempDir(), "absent.jsonl")},
	} {
		if code, _, errOut := runCLI(t, args...); code != 1 {
			t.Errorf("%v: exit %d, want 1 (%q)", args, code, errOut)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("a read command created the missing store %s", missing)
	}
}

func TestHelp(t *testing.T) {
	clearEnv(t)
	for _, tc := range []struct {
		cmd  string
		want []string
	}{
		{"demo", []string{"-preset"}},
		{"ingest", []string{"usage: omoide ingest", "# user: haruka", "@ 2025-06-01 21:30 +09:00", "haruka:2025-06-01T12:30:00Z:1", "-skip-bad", "-db", "OMOIDE_DB"}},
		{"retrieve", []string{"usage: omoide retrieve", "-recent", "-pack", "-json", "-key-env"}},
		{"delete", []string{"usage: omoide delete", "-external-id"}},
		{"forget", []string{"usage: omoide forget"}},
		{"stats", []string{"usage: omoide stats", "inconsistent"}},
		{"reembed", []string{"usage: omoide reembed", "-dim"}},
		{"serve", []string{"usage: omoide serve", "POST   /v1/episodes", "POST   /v1/retrieve", "POST   /v1/pack", "DELETE /v1/episodes/{id}",
			"DELETE /v1/users/{user}", "GET    /healthz", "-max-body", "OMOIDE_TOKEN", "413"}},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.cmd, "-help")
			if code != 0 || out != "" {
				t.Fatalf("exit %d, stdout %q", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("help lacks %q", w)
				}
			}
		})
	}
	if code, _, errOut := runCLI(t, "help"); code != 0 || !strings.Contains(errOut, "serve") || !strings.Contains(errOut, "reembed") {
		t.Errorf("omoide help: exit %d, %q", code, errOut)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestIngestProgress(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	jsonl := writeFile(t, dir, "e.jsonl", testEpisodes)
	db := filepath.Join(dir, "p.db")
	code, out, errOut := runCLI(t, "ingest", "-db", db, "-progress", "-batch", "2", jsonl)
	if code != 0 || !strings.Contains(out, "5 added") {
		t.Fatalf("exit %d, %q, %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "\r  5/5 episodes  100%  ") || !strings.HasSuffix(errOut, "/s\n") {
		t.Errorf("progress %q", errOut)
	}
	// Without -progress, and stderr not a terminal, there is no bar.
	if _, _, errOut := runCLI(t, "ingest", "-db", db, jsonl); errOut != "" {
		t.Errorf("stderr %q, want nothing", errOut)
	}
	if out := mustRun(t, "reembed", "-db", db, "-dim", "32", "-progress"); !strings.Contains(out, "re-embedded 5 episodes") {
		t.Errorf("reembed: %q", out)
	}
}

func TestCheckAndReindex(t *testing.T) {
	db, _ := newTestStore(t)
	if out := mustRun(t, "check", "-db", db); !strings.Contains(out, "the three tables agree") {
		t.Fatalf("check: %q", out)
	}
	// Lose an FTS row behind the store's back.
	store, err := sqlite.Open(context.Background(), db, sqlite.Options{Embedder: omoide.DefaultEmbedder()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.DB().Exec(`DELETE FROM episodes_fts WHERE rowid = (SELECT min(id) FROM episodes)`); err != nil {
		t.Fatal(err)
	}
	store.Close()
	code, out, errOut := runCLI(t, "check", "-db", db)
	if code != 1 || !strings.Contains(out, "1 episodes without an FTS row") || !strings.Contains(errOut, "reindex") {
		t.Fatalf("check of a broken store: exit %d, %q, %q", code, out, errOut)
	}
	if out := mustRun(t, "reindex", "-db", db); !strings.Contains(out, "reindexed 5 episodes") {
		t.Fatalf("reindex: %q", out)
	}
	if out := mustRun(t, "check", "-db", db); !strings.Contains(out, "the three tables agree") {
		t.Fatalf("check after reindex: %q", out)
	}

	// The recorded identity: a dimension that is not the vector table's is
	// found (reindex with that dimension rebuilds the table), a missing one
	// fails the check.
	setMeta := func(key, value string) {
		t.Helper()
		store, err := sqlite.Open(context.Background(), db, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		if _, err := store.DB().Exec(`UPDATE meta SET value = ? WHERE key = ?`, value, key); err != nil {
			t.Fatal(err)
		}
	}
	setMeta("embedder_dim", "32")
	code, out, errOut = runCLI(t, "check", "-db", db)
	if code != 1 || !strings.Contains(out, "embedder   hash-v1+w/32 (vector table: 256 dimensions)") ||
		!strings.Contains(out, "the vector table holds 256-dimension vectors, the embedder hash-v1+w/32 makes 32") ||
		!strings.Contains(out, "5 episodes without a quantized vector") {
		t.Fatalf("check of a store recording 32 dimensions over 256: exit %d, %q, %q", code, out, errOut)
	}
	if out := mustRun(t, "reindex", "-db", db, "-dim", "32"); !strings.Contains(out, "reindexed 5 episodes") {
		t.Fatalf("reindex -dim 32: %q", out)
	}
	if out := mustRun(t, "check", "-db", db); !strings.Contains(out, "the three tables agree") || !strings.Contains(out, "(vector table: 32 dimensions)") {
		t.Fatalf("check after reindex -dim 32: %q", out)
	}
	setMeta("embedder_name", "")
	if code, out, errOut := runCLI(t, "check", "-db", db, "-dim", "32"); code != 1 || !strings.Contains(errOut, "embedder or analyzer not recorded") {
		t.Fatalf("check of a store without its embedder name: exit %d, %q, %q", code, out, errOut)
	}
}

// TestReindexAnalyzer: reindex -analyzer moves a store to another analyzer
// and records it; an unknown name is a usage error naming the valid ones.
func TestReindexAnalyzer(t *testing.T) {
	db, _ := newTestStore(t)
	if out := mustRun(t, "reindex", "-db", db, "-analyzer", "kagome+snowball"); !strings.Contains(out, "analyzed 5 episodes with kagome+snowball") {
		t.Errorf("reindex -analyzer kagome+snowball: %q", out)
	}
	if out := mustRun(t, "stats", "-db", db); !strings.Contains(out, "analyzer       kagome+snowball") {
		t.Errorf("stats after the move:\n%s", out)
	}
	mustRun(t, "reindex", "-db", db, "-analyzer", "cjk")
	if out := mustRun(t, "check", "-db", db); !strings.Contains(out, "cjk") {
		t.Errorf("check after the move back:\n%s", out)
	}
	// cjk2, the mora repair's version of cjk: a store built with cjk moves to it.
	if out := mustRun(t, "reindex", "-db", db, "-analyzer", "cjk2"); !strings.Contains(out, "analyzed 5 episodes with cjk2") {
		t.Errorf("reindex -analyzer cjk2: %q", out)
	}
	if out := mustRun(t, "stats", "-db", db); !strings.Contains(out, "analyzer       cjk2") {
		t.Errorf("stats after the move to cjk2:\n%s", out)
	}
	code, _, errOut := runCLI(t, "reindex", "-db", db, "-analyzer", "mecab")
	if code != 2 || !strings.Contains(errOut, "mecab") || !strings.Contains(errOut, "cjk") {
		t.Errorf("reindex -analyzer mecab: exit %d, %q", code, errOut)
	}
}
