package dataset

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// chatClasses are the classes of the chat suite's turns (testdata/chat/README.md).
var chatClasses = []string{"absent", "count", "dates", "direct", "emoji", "followup", "forms", "grammar", "greeting",
	"leans", "names", "paraphrase", "reply", "script", "smalltalk", "still"}

// TestChatSuite checks the chat suite as bench eval reads it: every
// language with at least four people and 150 turns, each turn's labels the
// person's own episodes dated before it, a known class, the recent turns a
// leaning turn needs, and judged and fit halves that both hold people.
func TestChatSuite(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/chat/*/queries.jsonl")
	if len(dirs) < 4 {
		t.Fatalf("chat suite: %d languages, want ja, zh, ko and en", len(dirs))
	}
	for _, q := range dirs {
		dir := filepath.Dir(q)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s, err := LoadSuite(dir)
			if err != nil {
				t.Fatal(err)
			}
			if s.Duplicates > 0 {
				t.Errorf("%d episodes repeat an id", s.Duplicates)
			}
			eps := map[string]Episode{}
			people := map[string]int{}
			for _, e := range s.Episodes {
				eps[e.ID] = e
				people[e.User]++
			}
			if len(people) < 4 {
				t.Errorf("%d people, want at least 4", len(people))
			}
			for p, n := range people {
				if n < 20 || n > 200 {
					t.Errorf("%s has %d memories, want 20 to 200", p, n)
				}
			}
			if len(s.Queries) < 150 {
				t.Errorf("%d turns, want at least 150", len(s.Queries))
			}
			halves := map[bool]int{}
			ids := map[string]bool{}
			for _, q := range s.Queries {
				if ids[q.ID] {
					t.Errorf("turn id %s twice", q.ID)
				}
				ids[q.ID] = true
				halves[s.InJudged(q)]++
				if !slices.Contains(chatClasses, q.Category) {
					t.Errorf("%s: class %q", q.ID, q.Category)
				}
				if q.Category == "leans" && len(q.Context) == 0 {
					t.Errorf("%s leans on recent turns it does not have", q.ID)
				}
				for _, id := range append(slices.Clone(q.Relevant), q.Acceptable...) {
					e, ok := eps[id]
					switch {
					case !ok:
						t.Errorf("%s names episode %s, which is not in the suite", q.ID, id)
					case e.User != q.User:
						t.Errorf("%s (%s) names %s, another person's", q.ID, q.User, id)
					case !e.OccurredAt.Before(q.Now):
						t.Errorf("%s names %s, dated %v, not before the turn (%v)", q.ID, id, e.OccurredAt, q.Now)
					case slices.Contains(q.Relevant, id) && slices.Contains(q.Acceptable, id):
						t.Errorf("%s: %s is both relevant and acceptable", q.ID, id)
					}
				}
			}
			if halves[true] == 0 || halves[false] == 0 {
				t.Errorf("judged half %d turns, fit half %d: %s must name the judged people", halves[true], halves[false], SuiteFile)
			}
			if _, err := os.Stat(filepath.Join(dir, "..", "README.md")); err != nil {
				t.Errorf("no testdata/chat/README.md: %v", err)
			}
		})
	}
}
