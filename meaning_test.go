package omoide_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/tokenize"
)

// meaningSuite is the suite of issue 36: memories asked about in other words
// (paraphrase, association) and memories that are related but not what is
// asked (related-wrong), written before any word-vector neighbour list existed.
const meaningSuite = "testdata/meaning-ja"

// TestMeaningSuite checks that testdata/meaning-ja is what it claims to be,
// by the default analyzer's own measure (tokenize.CJK2, as the store indexes
// and queries): no paraphrase or association query shares a term with any of
// its relevant episodes — the terms the retriever searches with (Terms of the
// message and of every recent turn) against the terms stored for the episode
// (Index of its user_text and reply_text) — so term overlap cannot find them;
// every related-wrong query expects nothing and shares at least one term with
// its person's memory, so something lexical tempts an inject; every relevant
// id exists and is the query's person's; ids are unique; and there are at least
// 20 paraphrase or association queries and 10 related-wrong ones.
//
// A query that fails is not a paraphrase by the analyzer's measure: rewrite
// or drop it, do not loosen this test.
func TestMeaningSuite(t *testing.T) {
	s, err := dataset.LoadSuite(meaningSuite)
	if err != nil {
		t.Fatal(err)
	}
	if s.Duplicates != 0 {
		t.Errorf("%d episodes repeat an earlier (user, id)", s.Duplicates)
	}
	an := tokenize.CJK2()
	episodes := make(map[string]dataset.Episode, len(s.Episodes))
	stored := make(map[string]map[string]bool, len(s.Episodes)) // episode id: its indexed terms
	memory := make(map[string]map[string]bool)                  // user: the indexed terms of all their episodes
	for _, e := range s.Episodes {
		if _, dup := episodes[e.ID]; dup {
			t.Errorf("episode id %s repeats", e.ID)
		}
		if !strings.HasPrefix(e.ID, e.User+":") {
			t.Errorf("episode %s: id does not start with its user %q", e.ID, e.User)
		}
		if e.OccurredAt.IsZero() || strings.TrimSpace(e.UserText) == "" || strings.TrimSpace(e.ReplyText) == "" {
			t.Errorf("episode %s: missing time or text", e.ID)
		}
		episodes[e.ID] = e
		terms := make(map[string]bool)
		for _, text := range []string{e.UserText, e.ReplyText} {
			for _, term := range strings.Fields(an.Index(text)) {
				terms[term] = true
			}
		}
		stored[e.ID] = terms
		if memory[e.User] == nil {
			memory[e.User] = make(map[string]bool)
		}
		for term := range terms {
			memory[e.User][term] = true
		}
	}

	counts := make(map[string]int)
	seen := make(map[string]bool, len(s.Queries))
	for _, q := range s.Queries {
		if seen[q.ID] {
			t.Errorf("query id %s repeats", q.ID)
		}
		seen[q.ID] = true
		counts[q.Category]++
		if memory[q.User] == nil {
			t.Errorf("query %s: user %q has no episodes", q.ID, q.User)
		}
		if q.Now.IsZero() || strings.TrimSpace(q.Text) == "" {
			t.Errorf("query %s: missing now or text", q.ID)
		}
		if q.Relevant == nil {
			t.Errorf("query %s: relevant is missing (write [] for nothing to inject)", q.ID)
		}
		for _, id := range q.Relevant {
			e, ok := episodes[id]
			switch {
			case !ok:
				t.Errorf("query %s: relevant %s does not exist", q.ID, id)
			case e.User != q.User:
				t.Errorf("query %s: relevant %s is %s's, not %s's", q.ID, id, e.User, q.User)
			case !e.OccurredAt.Before(q.Now):
				t.Errorf("query %s: relevant %s is not before now", q.ID, id)
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(q.Relevant)))) != len(q.Relevant) {
			t.Errorf("query %s: a relevant id repeats", q.ID)
		}

		asked := an.Terms(q.Text)
		for _, m := range q.Context {
			asked = append(asked, an.Terms(m.Content)...)
		}
		switch q.Category {
		case "paraphrase", "association":
			if len(q.Relevant) == 0 {
				t.Errorf("query %s: a %s query names no relevant episode", q.ID, q.Category)
			}
			for _, id := range q.Relevant {
				var shared []string
				for _, term := range asked {
					if stored[id][term] && !slices.Contains(shared, term) {
						shared = append(shared, term)
					}
				}
				if len(shared) > 0 {
					t.Errorf("query %s shares terms with its relevant %s: %s", q.ID, id, strings.Join(shared, " "))
				}
				// The thesaurus the retriever weighs query terms with may
				// still bridge a paraphrase: say so, it is what lexical
				// search can already see.
				if th, ok := an.(tokenize.Thesaurus); ok {
					for _, term := range asked {
						for _, alt := range th.Synonyms(term) {
							if stored[id][alt] {
								t.Logf("query %s: the thesaurus bridges %s → %s of %s", q.ID, term, alt, id)
							}
						}
					}
				}
			}
		case "related-wrong":
			if len(q.Relevant) != 0 {
				t.Errorf("query %s: a related-wrong query expects nothing, not %v", q.ID, q.Relevant)
			}
			if !slices.ContainsFunc(asked, func(term string) bool { return memory[q.User][term] }) {
				t.Errorf("query %s: shares no term with %s's memory, so nothing tempts an inject", q.ID, q.User)
			}
		default:
			t.Errorf("query %s: category %q is none of paraphrase, association, related-wrong", q.ID, q.Category)
		}
	}
	if n := counts["paraphrase"] + counts["association"]; n < 20 {
		t.Errorf("%d paraphrase and association queries, want at least 20", n)
	}
	if n := counts["related-wrong"]; n < 10 {
		t.Errorf("%d related-wrong queries, want at least 10", n)
	}
	t.Logf("%d episodes; queries: %v", len(s.Episodes), counts)
}
