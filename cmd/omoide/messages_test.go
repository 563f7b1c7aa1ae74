package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/omoidehttp"
)

// bom is the UTF-8 byte order mark Windows editors and PowerShell write
// first.
const bom = "\ufeff"

// TestMessagesCommandLine: issue 35's messages that misled on the command
// line now say what is wrong, with the exit status of its kind (2 for how
// the command was called, 1 for a failure), or accept what was refused for
// no reason.
func TestMessagesCommandLine(t *testing.T) {
	db, _ := newTestStore(t)
	dir := t.TempDir()
	models := filepath.Join("..", "..", "embed", "testdata", "static")
	truncated := brokenModel(t, filepath.Join(models, "m2v-en"), "model.safetensors", func(b []byte) []byte { return b[:1000] })
	badTok := brokenModel(t, filepath.Join(models, "m2v-en"), "tokenizer.json", func([]byte) []byte { return []byte(`{"model":`) })
	const line = `{"id": "bom:1", "user": "mika", "user_text": "BOMのあるファイルから", "reply_text": "読めたね", "occurred_at": "2025-06-01T12:00:00Z"}` + "\n"
	withBOM := writeFile(t, dir, "bom.jsonl", bom+line)
	bomInside := writeFile(t, dir, "bominside.jsonl", strings.Replace(line, `"user":`, bom+`"user":`, 1))
	retrieve := []string{"retrieve", "-db", db, "-user", "haruka", "-now", testNow}
	context := func(name, turns string) string { return writeFile(t, dir, name, turns) }
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // in stderr, or in stdout when code is 0
		not  string   // not in what want is looked for in
	}{
		{"a JSON Lines file that opens with a BOM", []string{"ingest", "-db", db, withBOM}, 0,
			[]string{"1 episodes read, 1 added"}, ""},
		{"a BOM inside a line", []string{"ingest", "-db", db, bomInside}, 1,
			[]string{"bominside.jsonl:1: ", "byte order mark (U+FEFF) at byte 16"}, "'ï'"},
		{"a context file that opens with a BOM, with a system turn", append(retrieve, "-context",
			context("system.json", bom+`[{"role": "system", "content": "You are kind."}, {"role": "user", "content": "ラーメン"}]`), "味噌ラーメン"), 0,
			[]string{"q2: User: ラーメン --- 味噌ラーメン"}, "You are kind"}, // the default leaves the system turn out
		{"role User", append(retrieve, "-context", context("upper.json", `[{"role": "User", "content": "hi"}]`), "a"), 2,
			[]string{`role "User": want "user", "assistant" or "system" (roles are lower case)`}, ""},
		{"-kinds 99", append(retrieve, "-kinds", "99", "a"), 2,
			[]string{"-kinds: kind 99 does not exist: want episode (1), fact (2), summary (3) or loop (7)"}, ""},
		{"-kinds fact,4", append(retrieve, "-kinds", "fact,4", "a"), 2, []string{"-kinds: kind 4 does not exist"}, ""},
		{"-states 9", append(retrieve, "-states", "9", "a"), 2,
			[]string{"-states: state 9 does not exist: want raw (0), validated (1), consolidated (2) or archived (3)"}, ""},
		{"-max-sensitivity 5", append(retrieve, "-max-sensitivity", "5", "a"), 2,
			[]string{"-max-sensitivity: sensitivity 5 does not exist: want normal (0), private (1) or secret (2)"}, ""},
		{"-kinds fact", append(retrieve, "-kinds", "fact", "a"), 0, nil, ""},
		{"a static model folder that is not there", append(retrieve, "-embedder", "static", "-model", filepath.Join(dir, "nope"), "a"), 1,
			[]string{"nope: no such file or directory"}, "usage"},
		{"a truncated model.safetensors", append(retrieve, "-embedder", "static", "-model", truncated, "a"), 1,
			[]string{filepath.Join(truncated, "model.safetensors"), "run past the end"}, "usage"},
		{"a bad tokenizer.json", append(retrieve, "-embedder", "static", "-model", badTok, "a"), 1,
			[]string{filepath.Join(badTok, "tokenizer.json"), "unexpected end of JSON input"}, "usage"},
		{"a folder without a model", append(retrieve, "-embedder", "static", "-model", dir, "a"), 1,
			[]string{"not a static embedding model"}, "usage"},
		{"a -dim the model cannot give", append(retrieve, "-embedder", "static", "-model", filepath.Join(models, "st-ja"), "-dim", "65", "a"), 2,
			[]string{"usage: -dim: ", "dimension 65: the model has 64"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, errOut)
			}
			if code == 0 {
				errOut = out // and tc.not must not be in the answer
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("%q lacks %q", errOut, w)
				}
			}
			if tc.not != "" && strings.Contains(errOut, tc.not) {
				t.Errorf("%q holds %q", errOut, tc.not)
			}
		})
	}
}

// brokenModel copies the static model in src to a new folder, with the file
// name changed by edit, and returns the folder.
func brokenModel(t *testing.T, src, name string, edit func([]byte) []byte) string {
	t.Helper()
	dst := t.TempDir()
	for _, f := range []string{"config.json", "model.safetensors", "tokenizer.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == name {
			b = edit(b)
		}
		writeFile(t, dst, f, string(b))
	}
	return dst
}

// TestMessagesHTTP: over HTTP, a body that opens with a BOM is read, one
// with a BOM elsewhere is a 400 that names it, a system turn is accepted
// and "User" refused with the roles that are, and a filter of a kind,
// state or sensitivity that does not exist is a 400 naming it.
func TestMessagesHTTP(t *testing.T) {
	ctx := context.Background()
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(t.TempDir(), "s.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	ts := httptest.NewServer(omoidehttp.NewHandler(mem, omoidehttp.Config{}))
	defer ts.Close()
	const episodes = `[{"user": "mika", "user_text": "週末は鎌倉に行った", "reply_text": "いいね", "occurred_at": "2025-06-01T12:00:00Z"}]`
	ask := func(extra string) string {
		return `{"user": "mika", "text": "鎌倉", "now": "2025-07-01T00:00:00Z"` + extra + `}`
	}
	for _, tc := range []struct {
		name, path, body string
		code             int
		want             string // in the answer
	}{
		{"episodes that open with a BOM", "/v1/episodes", bom + episodes, 200, `"ids"`},
		{"a retrieval that opens with a BOM", "/v1/retrieve", bom + ask(""), 200, `"hits"`},
		{"a BOM after white space", "/v1/retrieve", " " + bom + ask(""), 400, "byte order mark (U+FEFF) at byte 1"},
		{"a BOM between fields", "/v1/retrieve", strings.Replace(ask(""), `"text"`, bom+`"text"`, 1), 400, "byte order mark (U+FEFF) at byte 17"},
		{"a system turn", "/v1/retrieve", ask(`, "recent": [{"role": "system", "content": "You are kind."}]`), 200, `"hits"`},
		{"role User", "/v1/retrieve", ask(`, "recent": [{"role": "User", "content": "hi"}]`), 400,
			`role \"User\": want \"user\", \"assistant\" or \"system\" (roles are lower case)`},
		{"kinds [99]", "/v1/retrieve", ask(`, "filter": {"kinds": [99]}`), 400,
			"filter: kind 99 does not exist: want episode (1), fact (2), summary (3) or loop (7)"},
		{"states [9]", "/v1/retrieve", ask(`, "filter": {"states": [9]}`), 400, "filter: state 9 does not exist"},
		{"kinds [\"fact\", 2]", "/v1/retrieve", ask(`, "filter": {"kinds": ["fact", 2]}`), 200, `"hits"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(ts.URL+tc.path, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.code || !strings.Contains(string(b), tc.want) {
				t.Errorf("%d %s, want %d with %q", resp.StatusCode, b, tc.code, tc.want)
			}
			if strings.Contains(string(b), "'ï'") || strings.Contains(string(b), `'\u00ef'`) {
				t.Errorf("the answer reads the BOM as a character: %s", b)
			}
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("the answer is not JSON: %s", b)
			}
		})
	}
}
