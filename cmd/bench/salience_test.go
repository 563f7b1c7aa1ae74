package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/salience"
)

// writeRatedSuite writes a small suite of two people whose exchanges are
// rated, the life events 3 and the greetings 0, with bob judged.
func writeRatedSuite(t *testing.T, dir string) {
	t.Helper()
	texts := []struct {
		user   string
		rating int
	}{
		{"来月引っ越すことになった、新しい部屋は三鷹", 3}, {"おはよう", 0}, {"父が入院して手術することになった", 3}, {"おやすみ〜", 0},
		{"I got the job offer today!", 3}, {"lol", 0}, {"My sister is getting married in May", 3}, {"hi", 0},
		{"今日のランチはパスタ", 1}, {"寒いね", 0}, {"엄마가 수술하셨어", 3}, {"ㅋㅋ", 0},
	}
	var eb, rb strings.Builder
	for i, tx := range texts {
		for _, user := range []string{"alice", "bob"} {
			id := fmt.Sprintf("%s-%02d", user, i)
			e, _ := json.Marshal(dataset.Episode{ID: id, User: user, UserText: tx.user, ReplyText: "そうなんだ", OccurredAt: testNow.AddDate(0, 0, -i-1)})
			eb.Write(append(e, '\n'))
			r, _ := json.Marshal(dataset.Rating{ID: id, Salience: tx.rating})
			rb.Write(append(r, '\n'))
		}
	}
	q, _ := json.Marshal(dataset.Query{ID: "q", User: "bob", Text: "覚えてる？", Now: testNow, Relevant: []string{}})
	for name, body := range map[string]string{"episodes.jsonl": eb.String(), dataset.SalienceFile: rb.String(), "queries.jsonl": string(q) + "\n",
		dataset.SuiteFile: `{"name": "rated", "judged": ["bob"]}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSalienceCommand checks that bench salience fits on the people of no
// judged half, reports the judged ones and writes a model that loads and
// ranks a life event above a greeting.
func TestSalienceCommand(t *testing.T) {
	dir := t.TempDir()
	writeRatedSuite(t, dir)
	out := filepath.Join(t.TempDir(), "model.json")
	got := runBench(t, "salience", "-suite", dir, "-l2", "0.1", "-o", out)
	for _, want := range []string{"rated", "fit half, all suites", "AUC ≥2", "event", "model: " + out} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := salience.LoadModel(b)
	if err != nil {
		t.Fatal(err)
	}
	x := func(s string) []float64 { return salience.Features(s, "", nil) }
	if e, g := m.Probability(x("来月引っ越すことになった")), m.Probability(x("おはよう")); e <= g {
		t.Errorf("event %.3f, greeting %.3f: want the event above", e, g)
	}
	if m.About["command"] == nil {
		t.Errorf("about: %v", m.About)
	}
	// A rating of an exchange the suite does not hold is an error, named.
	f, err := os.OpenFile(filepath.Join(dir, dataset.SalienceFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id": "nobody-1", "salience": 1}` + "\n")
	f.Close()
	if code, _, errOut := benchStatus(t, "salience", "-suite", dir); code == 0 || !strings.Contains(errOut, "name no exchange") {
		t.Errorf("a stray rating: exit %d, %s", code, errOut)
	}
}

// TestReadRatingsRefuses checks that a rating out of range or given twice
// is refused with its line.
func TestReadRatingsRefuses(t *testing.T) {
	for _, body := range []string{`{"id": "a", "salience": 4}`, `{"id": "a", "salience": 1}` + "\n" + `{"id": "a", "salience": 2}`, `{"salience": 1}`} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, dataset.SalienceFile), []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := dataset.ReadRatings(dir); err == nil || !strings.Contains(err.Error(), "line") {
			t.Errorf("%q: %v", body, err)
		}
	}
	if r, err := dataset.ReadRatings(t.TempDir()); r != nil || err != nil {
		t.Errorf("no file: %v, %v", r, err)
	}
}
