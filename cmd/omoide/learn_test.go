package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide/wordvec"
)

// learnEpisodes returns JSON Lines of haruka's and kenta's episodes: normal
// ones about cats, ramen and camping for both, football for kenta only, and
// haruka's private piano and archived guitar, each often enough to get a
// vector if it were learned from.
func learnEpisodes() string {
	var b strings.Builder
	line := func(id, user, text, reply, extra string) {
		fmt.Fprintf(&b, `{"id": %q, "user": %q, "user_text": %q, "reply_text": %q, "occurred_at": "2025-06-01T12:00:00Z"%s}`+"\n", id, user, text, reply, extra)
	}
	for i := range 12 {
		line(fmt.Sprintf("h%d", i), "haruka", "猫とラーメン", "キャンプに行く", "")
		line(fmt.Sprintf("k%d", i), "kenta", "ラーメンとキャンプ", "猫が好き", "")
		line(fmt.Sprintf("s%d", i), "kenta", "サッカーを見た", "ラーメンを食べた", "")
		line(fmt.Sprintf("p%d", i), "haruka", "ピアノを弾いた", "猫も聴いていた", `, "sensitivity": "private"`)
		line(fmt.Sprintf("a%d", i), "haruka", "ギターを弾いた", "ラーメンも食べた", `, "state": "archived"`)
	}
	return b.String()
}

// readVectors reads a vector file or fails the test.
func readVectors(t *testing.T, path string) *wordvec.Vectors {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := wordvec.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLearnOnlyFromWhatTheDefaultSearchAdmits(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	jsonl := writeFile(t, dir, "episodes.jsonl", learnEpisodes())
	db := filepath.Join(dir, "store.db")
	mustRun(t, "ingest", "-db", db, jsonl)
	harukaOnly := writeFile(t, dir, "people.txt", "haruka\n")
	tests := []struct {
		name   string
		args   []string
		says   []string
		has    []string
		lacks  []string
		people int // exchanges learned from
	}{
		{"file", []string{jsonl}, []string{"60 episodes read, 36 learned from", "24 not searched by default left out"},
			[]string{"猫", "ラーメン", "キャンプ", "サッカー"}, []string{"ピアノ", "ギター"}, 36},
		{"store", []string{"-db", db}, []string{"60 episodes read, 36 learned from", "24 not searched by default left out"},
			[]string{"猫", "ラーメン", "キャンプ", "サッカー"}, []string{"ピアノ", "ギター"}, 36},
		{"file, haruka only", []string{"-users", harukaOnly, jsonl}, []string{"24 of people not in -users left out"},
			[]string{"猫", "ラーメン", "キャンプ"}, []string{"サッカー", "ピアノ", "ギター"}, 12},
		{"store, haruka only", []string{"-users", harukaOnly, "-db", db}, []string{"24 of people not in -users left out"},
			[]string{"猫", "ラーメン", "キャンプ"}, []string{"サッカー", "ピアノ", "ギター"}, 12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "vectors.bin")
			said := mustRun(t, append([]string{"learn", "-o", out, "-dim", "4"}, tc.args...)...)
			for _, s := range tc.says {
				if !strings.Contains(said, s) {
					t.Errorf("output lacks %q:\n%s", s, said)
				}
			}
			v := readVectors(t, out)
			for _, w := range tc.has {
				if _, ok := v.Lookup(w); !ok {
					t.Errorf("%s has no vector", w)
				}
			}
			for _, w := range tc.lacks {
				if _, ok := v.Lookup(w); ok {
					t.Errorf("%s has a vector: learned from what it must not", w)
				}
			}
			if p := v.Params(); p.Exchanges != tc.people || p.Analyzer != "cjk2" || p.Dim != 4 {
				t.Errorf("params %+v, want %d exchanges of cjk2 in 4 dimensions", p, tc.people)
			}
		})
	}
}

func TestLearnWritesTheSameBytes(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	jsonl := writeFile(t, dir, "episodes.jsonl", learnEpisodes())
	var files [][]byte
	for i, args := range [][]string{{"-seed", "7"}, {"-seed", "7"}, {"-seed", "8"}} {
		out := filepath.Join(dir, fmt.Sprintf("v%d.bin", i))
		mustRun(t, append(append([]string{"learn", "-o", out, "-dim", "4"}, args...), jsonl)...)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("one input and seed wrote two files")
	}
	if bytes.Equal(files[0], files[2]) {
		t.Error("seeds 7 and 8 wrote the same file")
	}
	if v := readVectors(t, filepath.Join(dir, "v2.bin")); v.Params().Seed != 8 {
		t.Errorf("seed %d recorded, want 8", v.Params().Seed)
	}
}

func TestLearnUsage(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	jsonl := writeFile(t, dir, "episodes.jsonl", learnEpisodes())
	out := filepath.Join(dir, "v.bin")
	tests := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"no -o", []string{jsonl}, 2, "-o"},
		{"store and files", []string{"-o", out, "-db", filepath.Join(dir, "x.db"), jsonl}, 2, "not both"},
		{"analyzer of a store", []string{"-o", out, "-analyzer", "raw"}, 2, "own analyzer"},
		{"no store", []string{"-o", out, "-db", filepath.Join(dir, "none.db")}, 1, "no store"},
		{"dim 0", []string{"-o", out, "-dim", "0", jsonl}, 2, "-dim"},
		{"unknown analyzer", []string{"-o", out, "-analyzer", "nope", jsonl}, 2, "nope"},
		{"empty people", []string{"-o", out, "-users", writeFile(t, dir, "none.txt", "\n"), jsonl}, 1, "names no one"},
		{"too few terms", []string{"-o", out, "-min-count", "1000", jsonl}, 1, "need at least 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, append([]string{"learn"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.says) {
				t.Errorf("exit %d, want %d; stderr %q, want %q in it", code, tc.code, errOut, tc.says)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed learn wrote %s", out)
			}
		})
	}
}

func TestLearnHelp(t *testing.T) {
	clearEnv(t)
	code, out, errOut := runCLI(t, "learn", "-help")
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, w := range []string{"usage: omoide learn", "-users", "-window", "-min-count", "-seed", "search admits", "a forget", "learn again"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("help lacks %q", w)
		}
	}
	if code, _, errOut := runCLI(t, "help"); code != 0 || !strings.Contains(errOut, "learn") {
		t.Errorf("omoide help: exit %d, %q", code, errOut)
	}
}
