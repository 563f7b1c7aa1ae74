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

// realChatClasses are the classes of the real-chat suite's turns (testdata/realchat/README.md).
var realChatClasses = []string{"again", "related", "asks", "smalltalk", "new"}

// The chat suite's sizes (issue 55): every language has at least
// chatPeople people, chatLarge of them with at least chatLargeStore
// exchanges, every one with at least chatSmallStore, and chatTurns turns.
const (
	chatPeople     = 8
	chatLarge      = 4
	chatLargeStore = 1000
	chatSmallStore = 300
	chatTurns      = 400
)

// TestChatSuite checks the chat suite as bench eval reads it: every
// language at a real person's size, each store without an exchange twice,
// each turn's labels the person's own episodes dated before it, a known
// class, conversations whose turns lean on their earlier turns, and judged
// and fit halves that both hold people and every class.
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
			checkStores(t, s)
			memories, stores := map[string]int{}, map[string]int{}
			for _, e := range s.Episodes {
				stores[e.User]++
				if !e.Everyday {
					memories[e.User]++
				}
			}
			large := 0
			for p, n := range stores {
				if m := memories[p]; m < 20 || m > 200 {
					t.Errorf("%s has %d memories, want 20 to 200", p, m)
				}
				if n < chatSmallStore {
					t.Errorf("%s has %d exchanges, want at least %d", p, n, chatSmallStore)
				}
				if n >= chatLargeStore {
					large++
				}
			}
			if len(stores) < chatPeople || large < chatLarge {
				t.Errorf("%d people, %d of them with %d exchanges or more; want %d and %d", len(stores), large, chatLargeStore, chatPeople, chatLarge)
			}
			if len(s.Queries) < chatTurns {
				t.Errorf("%d turns, want at least %d", len(s.Queries), chatTurns)
			}
			checkTurns(t, s, chatClasses)
			for _, q := range s.Queries {
				if q.Category == "leans" && len(q.Context) == 0 {
					t.Errorf("%s leans on recent turns it does not have", q.ID)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "..", "README.md")); err != nil {
				t.Errorf("no testdata/chat/README.md: %v", err)
			}
		})
	}
}

// TestRealChatSuite checks the suite over real people's chat
// (testdata/realchat), whose texts are read from ../shared/eval: at least
// 8 speakers and 300 turns, none of the speakers held back, and the
// labels of TestChatSuite. Without the texts it skips, unless CI is set.
func TestRealChatSuite(t *testing.T) {
	dir := "../testdata/realchat"
	f, err := readSuiteFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !fileExists(filepath.Join(dir, f.Texts)) && os.Getenv("CI") == "" {
		t.Skipf("%s reads its texts from %s, which is not here (CI has it)", dir, f.Texts)
	}
	s, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	speakers := map[string]bool{}
	for _, e := range s.Episodes {
		speakers[e.User] = true
	}
	for p := range speakers {
		if HeldBack(p) {
			t.Errorf("speaker %s is held back for judging", p)
		}
	}
	if len(speakers) < 8 || len(s.Queries) < 300 {
		t.Errorf("%d speakers and %d turns, want at least 8 and 300", len(speakers), len(s.Queries))
	}
	checkTurns(t, s, realChatClasses)
}

// checkStores holds every person's store to no exchange twice (the same
// texts) and no exchange dated at or after any of their turns.
func checkStores(t *testing.T, s *Suite) {
	t.Helper()
	seen := map[[3]string]string{}
	for _, e := range s.Episodes {
		k := [3]string{e.User, e.UserText, e.ReplyText}
		if id, ok := seen[k]; ok {
			t.Errorf("%s repeats the exchange of %s: %q", e.ID, id, e.UserText)
		}
		seen[k] = e.ID
	}
	first := map[string]Query{}
	for _, q := range s.Queries {
		if f, ok := first[q.User]; !ok || q.Now.Before(f.Now) {
			first[q.User] = q
		}
	}
	for _, e := range s.Episodes {
		if q, ok := first[e.User]; ok && !e.OccurredAt.Before(q.Now) {
			t.Errorf("%s is dated %v, not before %s's turn %s (%v)", e.ID, e.OccurredAt, e.User, q.ID, q.Now)
		}
	}
}

// checkTurns holds a suite's turns to unique ids, known classes, labels of
// the person's own episodes dated before the turn, conversations whose
// every turn's recent turns are the earlier turns', and judged and fit
// halves that both hold every class.
func checkTurns(t *testing.T, s *Suite, classes []string) {
	t.Helper()
	eps := map[string]Episode{}
	for _, e := range s.Episodes {
		eps[e.ID] = e
	}
	ids := map[string]bool{}
	halves := map[bool]map[string]int{true: {}, false: {}}
	convs := map[string][]Query{}
	for _, q := range s.Queries {
		if ids[q.ID] {
			t.Errorf("turn id %s twice", q.ID)
		}
		ids[q.ID] = true
		halves[s.InJudged(q)][q.Category]++
		if !slices.Contains(classes, q.Category) {
			t.Errorf("%s: class %q", q.ID, q.Category)
		}
		if q.Relevant == nil {
			t.Errorf("%s: no relevant list (an empty one wants nothing)", q.ID)
		}
		if q.Conversation != "" {
			convs[q.User+"\x00"+q.Conversation] = append(convs[q.User+"\x00"+q.Conversation], q)
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
	for _, turns := range convs { // in file order, which is the conversation's
		for i := 1; i < len(turns); i++ {
			prev, q := turns[i-1], turns[i]
			want := append(slices.Clone(prev.Context), Message{Role: "user", Content: prev.Text})
			if len(q.Context) < len(want) || !slices.Equal(q.Context[:len(want)], want) {
				t.Errorf("%s: its recent turns are not %s's and %s itself", q.ID, prev.ID, prev.ID)
			}
			if q.Now.Before(prev.Now) {
				t.Errorf("%s is dated before %s, the turn before it in their conversation", q.ID, prev.ID)
			}
		}
	}
	for _, judged := range []bool{true, false} {
		for _, c := range classes {
			if halves[judged][c] == 0 && halves[!judged][c] > 0 {
				t.Errorf("class %s: no turn in the %s half", c, map[bool]string{true: "judged", false: "fit"}[judged])
			}
		}
	}
	if len(s.Judged) == 0 || len(halves[true]) == 0 || len(halves[false]) == 0 {
		t.Errorf("no judged half, or one without turns: %s must name the judged people", SuiteFile)
	}
}
