package tokenize

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatchQuery(t *testing.T) {
	tests := []struct {
		name  string
		terms []string
		want  string
	}{
		{"nil", nil, ""},
		{"one", []string{"ラーメン"}, `"ラーメン"`},
		{"or", []string{"昨日", "ラーメン", "食べる"}, `"昨日" OR "ラーメン" OR "食べる"`},
		{"quote doubled", []string{`a"b`}, `"a""b"`},
		{"lone quote", []string{`"`}, `""""`},
		{"syntax is literal", []string{"NEAR(a b)", "col:x", "*"}, `"NEAR(a b)" OR "col:x" OR "*"`},
		{"NUL removed", []string{"a\x00b"}, `"ab"`},
		{"C0 and DEL removed", []string{"a\tb\nc\x1fd\x7f"}, `"abcd"`},
		{"invalid UTF-8 removed", []string{"x\xffy\xfe"}, `"xy"`},
		{"valid U+FFFD kept", []string{"\uFFFD"}, "\"\uFFFD\""},
		{"empty skipped", []string{"", "a", " \u3000", "\x00", "\xff\xfe", "b"}, `"a" OR "b"`},
		{"nothing survives", []string{"", "\x00\x01", "\xff", " \t"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchQuery(tt.terms); got != tt.want {
				t.Errorf("MatchQuery(%q) = %q, want %q", tt.terms, got, tt.want)
			}
		})
	}
}

// hostileTerms are user texts that are FTS5 syntax, or bytes that could break
// the expression parser, if they were not quoted and cleaned.
var hostileTerms = []string{
	`"`, `""`, `a"b`, `"a`, `a"`, `"""`,
	`NEAR(`, `NEAR(a b)`, `NEAR(a b, 2)`, `NEAR`, `*`, `a*`, `^x`, `^`,
	`col:x`, `user_text:x`, `{user_text}:x`, `-user_text:x`, `:`,
	`AND`, `OR`, `NOT`, `a AND`, `OR b`, `NOT NOT`, `(`, `)`, `()`, `(a`, `a)`,
	`-x`, `-`, `+`, `a + b`, `'`, `''`, `\`, `;`, `--`, `/*`,
	"\x00", "a\x00b", "\x00\"", "\x01\x1f\x7f",
	"\xff\xfe", "a\xffb", "\xed\xa0\x80", "\xc0\xaf", "\"\xff\"",
	"😀", "👨\u200d👩\u200d👧", "🇯🇵", "e\u0301", "\u0301", "\u200d", "\u200b", "\ufeff",
	"\u202e", "مرحبا بالعالم", "שלום", "\u05d0\u05b7", "\uFFFD", "\U0010FFFF",
	"ラーメン", "東京 tower", "\u3000", "。、「」",
}

// TestMatchQueryHostileFTS5 runs every hostile term through a real FTS5 MATCH
// with BM25 ranking: none may fail.
func TestMatchQueryHostileFTS5(t *testing.T) {
	db := openFTS(t,
		"昨日 ラーメン 食べる",
		"near a b",
		"a b",
		"col x and or not",
		"😀 e\u0301 مرحبا שלום",
	)
	run := func(t *testing.T, terms []string) {
		t.Helper()
		expr := MatchQuery(terms)
		if expr == "" {
			return
		}
		if _, err := search(db, expr); err != nil {
			t.Errorf("terms %q: MATCH %q: %v", terms, expr, err)
		}
	}
	for _, term := range hostileTerms {
		run(t, []string{term})
		for _, a := range []Analyzer{Raw(), Bigram(), Kagome()} {
			run(t, a.Terms(term))
		}
	}
	run(t, hostileTerms)
	run(t, []string{strings.Join(hostileTerms, "")})

	// Many terms: FTS5 flattens a chain of ORs, so no depth limit is hit.
	many := make([]string, 5000)
	for i := range many {
		many[i] = hostileTerms[i%len(hostileTerms)]
	}
	run(t, many)
}

// TestMatchQueryIsLiteral checks that quoting makes FTS5 operators plain words.
func TestMatchQueryIsLiteral(t *testing.T) {
	db := openFTS(t,
		"near a b", // 1
		"a b",      // 2
		"x",        // 3
		"col x",    // 4
	)
	tests := []struct {
		term string
		want []int64
	}{
		{"NEAR(a b)", []int64{1}}, // the phrase "near a b", not NEAR(a b)
		{"col:x", []int64{4}},     // the phrase "col x", not a column filter
		{"a", []int64{1, 2}},
		{"NOT", nil},
	}
	for _, tt := range tests {
		ids, err := search(db, MatchQuery([]string{tt.term}))
		if err != nil {
			t.Fatalf("%q: %v", tt.term, err)
		}
		slices.Sort(ids)
		if !slices.Equal(ids, tt.want) {
			t.Errorf("%q matched rows %v, want %v", tt.term, ids, tt.want)
		}
	}
}

// FuzzMatchQuery checks that no text, and no analyzer's terms of it, yields an
// expression FTS5 rejects, and that an empty expression means no term had
// content.
func FuzzMatchQuery(f *testing.F) {
	for _, term := range hostileTerms {
		f.Add(term)
	}
	f.Add(strings.Join(hostileTerms, " "))
	db := openFTS(f, "昨日 ラーメン 食べる", "near a b", "col x and or not")
	analyzers := []Analyzer{Raw(), Bigram(), Kagome()}
	f.Fuzz(func(t *testing.T, s string) {
		lists := [][]string{{s}, strings.Split(s, "|")}
		for _, a := range analyzers {
			lists = append(lists, a.Terms(s))
			_ = a.Index(s)
		}
		for _, terms := range lists {
			expr := MatchQuery(terms)
			if !utf8.ValidString(expr) || strings.ContainsFunc(expr, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("MatchQuery(%q) = %q: invalid UTF-8 or control character", terms, expr)
			}
			if expr == "" {
				for _, term := range terms {
					if hasContent(term) {
						t.Fatalf("MatchQuery(%q) = \"\" but %q has content", terms, term)
					}
				}
				continue
			}
			if _, err := search(db, expr); err != nil {
				t.Fatalf("terms %q: MATCH %q: %v", terms, expr, err)
			}
		}
	})
}
