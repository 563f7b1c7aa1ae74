package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide/tokenize"
	"github.com/omoide/omoide/wordvec"
)

// TestTermsEmbedder: word vectors learned by wordvec are an embedder of the
// command line (-embedder terms -model FILE): a store is built and searched
// with it, records it, and refuses another embedder with the flags that open
// it; a file that is not there is a failure (exit 1), not a usage error.
func TestTermsEmbedder(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	var ex []wordvec.Exchange
	for i := range 60 {
		ex = append(ex, wordvec.Exchange{Message: fmt.Sprintf("今日はバイトで%d時間働いた", i%5+1), Reply: "アルバイトお疲れさま"},
			wordvec.Exchange{Message: "猫がかわいい", Reply: "猫の写真を見せて"})
	}
	v, err := wordvec.Learn(context.Background(), tokenize.CJK2(), ex, wordvec.Options{Dim: 4, MinCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "vectors.bin")
	f, err := os.Create(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	db := filepath.Join(dir, "m.db")
	line := `{"id":"1","user":"haruka","user_text":"駅前の店でバイトを始めた","reply_text":"がんばってね","occurred_at":"2026-02-20T10:00:00Z"}` + "\n"
	mustRun(t, "ingest", "-db", db, "-embedder", "terms", "-model", model, writeFile(t, dir, "e.jsonl", line))
	out := mustRun(t, "retrieve", "-db", db, "-embedder", "terms", "-model", model, "-user", "haruka", "-no-context", "-now", "2026-03-01T12:00:00Z", "バイトどう？")
	if !strings.Contains(out, "駅前の店でバイト") {
		t.Errorf("retrieve with the terms embedder:\n%s", out)
	}
	if out := mustRun(t, "stats", "-db", db); !strings.Contains(out, "terms:"+v.Fingerprint()[:16]) {
		t.Errorf("stats does not name the vectors:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "retrieve", "-db", db, "-user", "haruka", "バイト"); code != 1 || !strings.Contains(errOut, "-embedder terms -model FILE") {
		t.Errorf("the hash embedder on a terms store: exit %d %s", code, errOut)
	}
	// Vectors other than the store's: refused, naming both, and the store is
	// as it was.
	v2, err := wordvec.Learn(context.Background(), tokenize.CJK2(), ex, wordvec.Options{Dim: 3, MinCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.bin")
	if _, err := wordvec.WriteFile(other, v2); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "retrieve", "-db", db, "-embedder", "terms", "-model", other, "-user", "haruka", "バイト"); code != 1 ||
		!strings.Contains(errOut, "terms:"+v.Fingerprint()[:16]) || !strings.Contains(errOut, "terms:"+v2.Fingerprint()[:16]) {
		t.Errorf("another vectors file on a terms store: exit %d %s", code, errOut)
	}
	if out := mustRun(t, "stats", "-db", db); !strings.Contains(out, "episodes       1") {
		t.Errorf("the store changed after the refusal:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "retrieve", "-db", db, "-embedder", "terms", "-model", filepath.Join(dir, "nope.bin"), "-user", "haruka", "x"); code != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("a vectors file that is not there: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "retrieve", "-db", db, "-embedder", "terms", "-user", "haruka", "x"); code != 2 || !strings.Contains(errOut, "-embedder terms needs -model") {
		t.Errorf("-embedder terms without -model: exit %d %s", code, errOut)
	}
}
