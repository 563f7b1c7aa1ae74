package tokenize

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/omoide/omoide/internal/pytext"
)

// FuzzAnalyzers checks every analyzer on any text: Index and Terms never
// panic and are deterministic; on valid UTF-8 their output is valid UTF-8;
// the kagome and bigram terms are non-empty, hold no whitespace and are
// words of Index; and a text's own query finds it: when FTS5 matches any of
// the text's terms in a row holding only that term, the OR query of all the
// terms matches the row holding the text's Index too.
func FuzzAnalyzers(f *testing.F) {
	for _, term := range hostileTerms {
		f.Add(term)
	}
	for _, s := range []string{
		"昨日は駅前の味噌ラーメンを食べた。また行きたいな",
		"iPhone15を買った！ＡＢＣ１２３ ｶﾀｶﾅ ①",
		"東京タワーとTokyo Towerとtōkyō",
		strings.Repeat("ゎ", 300),
		"か\u3099き\u309a 𠮷野家 々 ー ーー",
		"Ǆemal Ǆ ǅ ǆ İstanbul ß ẞ ﬃ",
		"うちのにゃんこがぴゅーっときゃりーぱみゅぱみゅ",
		strings.Repeat("にゃー", 100),
	} {
		f.Add(s)
	}
	db := openFTS(f)
	analyzers := []Analyzer{Raw(), Bigram(), Kagome(), CJK2()}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4<<10 {
			return // kagome's cost grows with the text: keep the executions short
		}
		valid := utf8.ValidString(s)
		for _, a := range analyzers {
			index, terms := a.Index(s), a.Terms(s)
			if a.Index(s) != index || !slices.Equal(a.Terms(s), terms) {
				t.Fatalf("%s: not deterministic on %q", a.Name(), s)
			}
			if valid && !utf8.ValidString(index) {
				t.Fatalf("%s: Index(%q) = %q is not valid UTF-8", a.Name(), s, index)
			}
			for _, term := range terms {
				if valid && !utf8.ValidString(term) {
					t.Fatalf("%s: term %q of %q is not valid UTF-8", a.Name(), term, s)
				}
			}
			if a.Name() == RawName {
				continue // Raw indexes the text as it is; its terms are Python's split
			}
			words := strings.Fields(index)
			for _, term := range terms {
				if term == "" || strings.ContainsFunc(term, pytext.IsSpace) {
					t.Fatalf("%s: term %q of %q is empty or holds whitespace", a.Name(), term, s)
				}
				if !slices.Contains(words, term) {
					t.Fatalf("%s: term %q of %q is not in its Index %q", a.Name(), term, s, index)
				}
			}
			if len(terms) == 0 {
				continue
			}
			terms = terms[:min(len(terms), 16)]
			if _, err := db.Exec(`DELETE FROM turns`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO turns(rowid, user_text) VALUES (1, ?)`, index); err != nil {
				t.Fatalf("%s: indexing %q: %v", a.Name(), index, err)
			}
			for i, term := range terms {
				if _, err := db.Exec(`INSERT INTO turns(rowid, user_text) VALUES (?, ?)`, i+2, term); err != nil {
					t.Fatal(err)
				}
			}
			expr := MatchQuery(terms)
			if expr == "" {
				t.Fatalf("%s: terms %q of %q make no query", a.Name(), terms, s)
			}
			ids, err := search(db, expr)
			if err != nil {
				t.Fatalf("%s: MATCH %q: %v", a.Name(), expr, err)
			}
			if len(ids) > 0 && !slices.Contains(ids, 1) {
				t.Fatalf("%s: query %s of %q finds rows %v but not the text's own Index %q", a.Name(), expr, s, ids, index)
			}
		}
	})
}
