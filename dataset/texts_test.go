package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeTexts writes a suite over texts in dir/suite and its texts in
// dir/texts.jsonl: speaker s, store dialogues d1 and d2, turns in d3.
func writeTexts(t *testing.T, dir, stores, labels string) string {
	t.Helper()
	texts := `{"id": "d1:0", "user": "s", "user_text": "猫を飼い始めました", "reply_text": "いいですね", "occurred_at": "2022-08-01T12:00:00Z"}
{"id": "d1:2", "user": "s", "user_text": "名前はミケです", "reply_text": "かわいい", "occurred_at": "2022-08-01T12:01:00Z"}
{"id": "d2:0", "user": "s", "user_text": "在宅勤務です", "reply_text": "楽ですね", "occurred_at": "2022-08-02T12:00:00Z"}
{"id": "x1:0", "user": "other", "user_text": "関係ない", "reply_text": "", "occurred_at": "2022-08-02T12:00:00Z"}
{"id": "d3:2", "user": "s", "user_text": "うちのミケが", "reply_text": "どうしました", "occurred_at": "2022-08-03T15:30:00Z"}
{"id": "d3:0", "user": "s", "user_text": "こんばんは", "reply_text": "こんばんは", "occurred_at": "2022-08-03T15:29:00Z"}
{"id": "d3:4", "user": "s", "user_text": "秒が前後する", "reply_text": "", "occurred_at": "2022-08-03T15:29:30Z"}
`
	suite := filepath.Join(dir, "suite")
	os.MkdirAll(suite, 0o755)
	os.WriteFile(filepath.Join(dir, "texts.jsonl"), []byte(texts), 0o644)
	os.WriteFile(filepath.Join(suite, SuiteFile), []byte(`{"name": "real", "texts": "../texts.jsonl", "offset": "+09:00", "grow": "haystack"}`), 0o644)
	os.WriteFile(filepath.Join(suite, StoresFile), []byte(stores), 0o644)
	os.WriteFile(filepath.Join(suite, LabelsFile), []byte(labels), 0o644)
	return suite
}

const (
	goodStores = `{"user": "s", "dialogues": ["d1", "d2"]}` + "\n"
	goodLabels = `{"id": "d3:0", "user": "s", "relevant": [], "category": "smalltalk"}
{"id": "d3:2", "user": "s", "relevant": ["d1:2"], "acceptable": ["d1:0"], "category": "again"}
{"id": "d3:4", "user": "s", "relevant": [], "category": "smalltalk"}
`
)

// TestTextsSuite: a suite over another file's texts is its stores'
// exchanges and its labels' turns, each after its dialogue's earlier
// exchanges, at the suite's offset.
func TestTextsSuite(t *testing.T) {
	s, err := LoadSuite(writeTexts(t, t.TempDir(), goodStores, goodLabels))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "real" || s.Grow != GrowHaystack || len(s.Episodes) != 3 || len(s.Queries) != 3 {
		t.Fatalf("suite %+v", s)
	}
	for _, e := range s.Episodes {
		if !e.Everyday || e.User != "s" || strings.HasPrefix(e.ID, "d3") || strings.HasPrefix(e.ID, "x1") {
			t.Errorf("episode %+v", e)
		}
	}
	q := s.Queries[1]
	if q.Text != "うちのミケが" || q.Conversation != "d3" || q.Category != "again" || q.Ordinal != 2 ||
		len(q.Context) != 2 || q.Context[0].Content != "こんばんは" || q.Context[1].Role != "assistant" {
		t.Fatalf("turn %+v", q)
	}
	if _, off := q.Now.Zone(); off != 9*3600 || !q.Now.Equal(time.Date(2022, 8, 3, 15, 30, 0, 0, time.UTC)) {
		t.Fatalf("now %v, want 2022-08-04 00:30 at +09:00", q.Now)
	}
	if q2 := s.Queries[2]; !q2.Now.Equal(q.Now) || len(q2.Context) != 4 {
		t.Fatalf("a turn stamped before the one it follows: now %v (want %v), context %d", q2.Now, q.Now, len(q2.Context))
	}
	if q0 := s.Queries[0]; q0.Relevant == nil || len(q0.Context) != 0 || q0.Context == nil {
		t.Fatalf("first turn %+v: relevant and context must be empty, not nil", q0)
	}
}

func TestTextsSuiteErrors(t *testing.T) {
	for _, tc := range []struct{ name, stores, labels, want string }{
		{"missing dialogue", `{"user": "s", "dialogues": ["d1", "d9"]}`, goodLabels, "no exchange of dialogue d9"},
		{"another's dialogue", `{"user": "s", "dialogues": ["d1", "x1"]}`, goodLabels, "exchange x1:0 is other's"},
		{"two stores", goodStores + `{"user": "t", "dialogues": ["d2"]}`, goodLabels, "dialogue d2 is in s's store and t's"},
		{"no such turn", goodStores, `{"id": "d3:6", "user": "s", "relevant": [], "category": "new"}`, "turn d3:6: no such exchange"},
		{"not an exchange id", goodStores, `{"id": "d3", "user": "s", "relevant": [], "category": "new"}`, `turn "d3": want an exchange id`},
		{"a turn of its store", goodStores, `{"id": "d1:2", "user": "s", "relevant": [], "category": "new"}`, "a turn is never its own memory"},
		{"a turn in a store", goodStores, `{"id": "d1:2", "user": "t", "relevant": [], "category": "new"}`, "turn d1:2 of t is in s's dialogue d1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadSuite(writeTexts(t, t.TempDir(), tc.stores, tc.labels))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
	dir := t.TempDir()
	suite := writeTexts(t, dir, goodStores, goodLabels)
	os.Remove(filepath.Join(dir, "texts.jsonl"))
	if _, err := LoadSuite(suite); err == nil || !strings.Contains(err.Error(), "texts.jsonl") || !strings.Contains(err.Error(), "not there") {
		t.Fatalf("err = %v, want one naming the missing texts", err)
	}
}

// TestEverydayFile: everyday.jsonl's episodes follow episodes.jsonl's,
// marked Everyday; a suite.json's grow is checked.
func TestEverydayFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "episodes.jsonl"), []byte(`{"id": "a-001", "user": "a", "user_text": "引っ越した", "reply_text": "", "occurred_at": "2025-06-01T12:00:00+09:00"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, EverydayFile), []byte(`{"id": "a-d0001", "user": "a", "user_text": "おはよう", "reply_text": "おはよう", "occurred_at": "2025-06-02T07:00:00+09:00"}`+"\n"), 0o644)
	s, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Episodes) != 2 || s.Episodes[0].Everyday || !s.Episodes[1].Everyday || s.Grow != GrowPeople {
		t.Fatalf("episodes %+v, grow %q", s.Episodes, s.Grow)
	}
	os.WriteFile(filepath.Join(dir, SuiteFile), []byte(`{"grow": "others"}`), 0o644)
	if _, err := LoadSuite(dir); err == nil || !strings.Contains(err.Error(), `grow "others"`) {
		t.Fatalf("err = %v, want one naming the grow", err)
	}
}
