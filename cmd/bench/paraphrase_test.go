package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/rerank"
)

// writeHaystack writes a small haystack of three speakers' exchanges about
// words the thesaurus knows, each named often enough to be asked by.
func writeHaystack(t *testing.T) string {
	t.Helper()
	texts := []string{"週末に野球を見に行きました", "駅前でアルバイトを始めました", "来週は大事な試験があります",
		"夕飯にカレーを作りました", "新しい自転車を買いました", "映画館で映画を見ました", "コーヒーをよく飲みます", "温泉でのんびりしました"}
	var lines []string
	for s, spk := range []string{"spk-a", "spk-b", "spk-c"} {
		for i := range 60 {
			e := dataset.Episode{ID: fmt.Sprintf("%s:%d", spk, i), User: spk, UserText: texts[(i+s)%len(texts)], ReplyText: "そうなんですね",
				OccurredAt: testNow.AddDate(0, 0, -100+i)}
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(b))
		}
	}
	// a fourth speaker names the words the questions ask by, often enough
	for i := range 150 {
		text := []string{"サッカーが好きです", "バイトが忙しいです", "テストが近いです", "夕食を食べました", "ムービーを見ました", "お茶を飲みました"}[i%6]
		b, err := json.Marshal(dataset.Episode{ID: fmt.Sprintf("z:%d", i), User: "spk-z", UserText: text, ReplyText: "へえ", OccurredAt: testNow})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	path := filepath.Join(t.TempDir(), "haystack.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestParaphrase: bench paraphrase writes a suite that loads, with every
// category; bench train -paraphrase fits on such labels beside the suites
// given; a haystack that cannot be read is refused with its line.
func TestParaphrase(t *testing.T) {
	hay := writeHaystack(t)
	out := filepath.Join(t.TempDir(), "para")
	got := runBench(t, "paraphrase", "-haystack", hay, "-o", out, "-people", "4", "-memories", "8")
	if !strings.Contains(got, "4 people of 4 speakers, 32 episodes") {
		t.Errorf("paraphrase: %s", got)
	}
	s, err := dataset.LoadSuite(out)
	if err != nil {
		t.Fatal(err)
	}
	cats := map[string]int{}
	for _, q := range s.Queries {
		cats[q.Category]++
	}
	for _, c := range []string{"paraphrase", "sibling", "lexical"} {
		if cats[c] == 0 {
			t.Errorf("no %s question: %v", c, cats)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "README.md")); err != nil || !strings.Contains(string(b), "CC BY-SA 4.0") {
		t.Errorf("README: %v, %q", err, b)
	}

	dir := t.TempDir()
	writeSuite(t, dir)
	model := filepath.Join(t.TempDir(), "m.json")
	got = runBench(t, "train", "-suite", dir, "-paraphrase", "-haystack", hay, "-trees", "3", "-leave-out=false", "-o", model)
	if !strings.Contains(got, "paraphrase") {
		t.Errorf("train -paraphrase reports no paraphrase suite:\n%s", got)
	}
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	m, err := rerank.LoadModel(b)
	if err != nil {
		t.Fatal(err)
	}
	if suites := fmt.Sprint(m.About["suites"]); !strings.Contains(suites, "paraphrase") {
		t.Errorf("the model's suites %s do not name the paraphrase labels", suites)
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"id\":\"a\",\"user\":\"x\",\"user_text\":\"ok\"}\n{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := benchStatus(t, "paraphrase", "-haystack", bad, "-o", filepath.Join(t.TempDir(), "p"))
	if code != 1 || !strings.Contains(errOut, "line 2") || !strings.Contains(errOut, "-haystack") {
		t.Errorf("a bad haystack: exit %d, %q", code, errOut)
	}
	if code, _, errOut := benchStatus(t, "paraphrase", "-haystack", hay); code != 2 || !strings.Contains(errOut, "-o") {
		t.Errorf("no -o: exit %d, %q", code, errOut)
	}
}
