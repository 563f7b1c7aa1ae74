package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalize is the first pipeline stage shared by the kagome and bigram
// analyzers: Unicode NFKC (full-width ＡＢＣ１２３ becomes ABC123, half-width
// ｶﾀｶﾅ becomes カタカナ, ① becomes 1) followed by lower-casing.
func normalize(text string) string {
	return strings.ToLower(norm.NFKC.String(text))
}

// runKind says how the segment stage treats a script run.
type runKind uint8

const (
	// runCJK is a run of Han, Hiragana and Katakana (plus ー and 々): Japanese
	// text without word boundaries, which needs a segmenter.
	runCJK runKind = iota + 1
	// runWord is a run of letters, digits and marks of every other script
	// (Latin, Hangul, Cyrillic, Arabic, ...): one word, one term.
	runWord
)

// isCJK reports whether r belongs in a runCJK run: Han (which includes the
// iteration mark 々), Hiragana, Katakana, and the prolonged sound mark ー,
// whose script is Common.
func isCJK(r rune) bool {
	if r < 0x2e80 { // below the CJK radicals nothing is Han or kana
		return false
	}
	return r == 'ー' || r == '々' ||
		unicode.Is(unicode.Han, r) ||
		unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r)
}

// isWordRune reports whether r belongs in a runWord run.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// scriptRuns is the segment stage's first cut. It splits normalized text into
// runs and calls fn for each run in order:
//
//   - a maximal run of CJK characters (see isCJK) is a runCJK run;
//   - a maximal run of other letters and numbers is a runWord run, so "iphone",
//     "abc123", "안녕하세요" and "привет" are one run each;
//   - a combining mark (category M) continues the current run and is dropped
//     when there is none;
//   - everything else (spaces, punctuation, symbols, emoji, format characters
//     such as the zero-width joiner, invalid UTF-8) separates runs and is
//     dropped.
//
// Runs are substrings of text, so scriptRuns allocates nothing.
func scriptRuns(text string, fn func(kind runKind, run string)) {
	var (
		kind  runKind // kind of the open run, 0 when none is open
		start int     // byte offset of the open run
	)
	for i, r := range text {
		var k runKind
		switch {
		case r == utf8.RuneError:
			// Invalid UTF-8 (or a literal U+FFFD, a symbol): a separator.
		case isCJK(r):
			k = runCJK
		case isWordRune(r):
			k = runWord
		case unicode.IsMark(r):
			continue // extends the open run, if any, or is dropped
		}
		if k == kind {
			continue
		}
		if kind != 0 {
			fn(kind, text[start:i])
		}
		kind, start = k, i
	}
	if kind != 0 {
		fn(kind, text[start:])
	}
}

// collector gathers the terms of one text for the filter stage's output.
type collector struct {
	terms []string
}

func (c *collector) add(term string) { c.terms = append(c.terms, term) }

// index joins all terms with single spaces, repeats included, so that FTS5's
// BM25 sees each term's frequency.
func (c *collector) index() string { return strings.Join(c.terms, " ") }

// unique returns the terms without repeats, in order of first appearance.
func (c *collector) unique() []string {
	if len(c.terms) == 0 {
		return nil
	}
	out := make([]string, 0, len(c.terms))
	if len(c.terms) <= 16 {
		// A query is usually a handful of terms: a linear scan beats a map.
	next:
		for _, t := range c.terms {
			for _, u := range out {
				if t == u {
					continue next
				}
			}
			out = append(out, t)
		}
		return out
	}
	seen := make(map[string]struct{}, len(c.terms))
	for _, t := range c.terms {
		if _, ok := seen[t]; ok {
			continue
		}
		seen[t] = struct{}{}
		out = append(out, t)
	}
	return out
}
