// Package lang is omoide's one classifier of scripts and languages: what a
// character is written in (ScriptOf), what a text is written in (Detect), how
// much of a text each script holds (Shares), and the language hint a request
// may carry (Parse). Every package that asks which language a text is in asks
// here: tokenize (which analysis a text gets, whether it has names),
// timeexpr (which language's plan words a clause is read with), smalltalk
// (through timeexpr) and the retriever's signals of rerank's features.
//
// A language the script does not tell, Han written alone (東京都庁: Japanese
// or Chinese?), is the caller's hint: a request's Lang, or the store's
// analyzer's. The hint decides nothing that the script does.
//
// A new language is a constant here, its script in ScriptOf and Detect, and
// its tag in Parse and Pattern; the packages that read text by language then
// each get a branch (docs/architecture.md, "Where to add").
package lang

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Language is what a text is written in, as far as omoide cares.
type Language string

// The languages Detect tells apart and Parse reads.
const (
	Japanese Language = "ja"
	Chinese  Language = "zh"
	Korean   Language = "ko"
	Other    Language = "" // no Han, kana or Hangul: English and every other script
)

// Script is the script of one character, as far as Detect and Shares care.
type Script uint8

// The scripts ScriptOf tells apart.
const (
	// NoScript is a character that is not a letter of the scripts below:
	// digits, spaces, punctuation, symbols, marks, and ー (whose Unicode
	// script is Common, though only Japanese writes it: Detect reads it as
	// Japanese).
	NoScript Script = iota
	// Kana is hiragana and katakana (the Unicode scripts Hiragana and
	// Katakana, the half-width and circled forms included).
	Kana
	// Han is the Unicode script Han: kanji and hanzi, 々 and 〇.
	Han
	// Hangul is the Unicode script Hangul: syllables and jamo.
	Hangul
	// Latin is the Unicode script Latin.
	Latin
	// OtherLetter is a letter of any other script (Cyrillic, Arabic, ...),
	// and a letter of no script (ー).
	OtherLetter
)

// ScriptOf returns the script of r: Kana, Han, Hangul or Latin when r is in
// that Unicode script (letter or not: Ⅳ is Latin, ⺀ Han), else OtherLetter
// for any other letter, else NoScript.
func ScriptOf(r rune) Script {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return Latin
		}
		return NoScript
	}
	switch {
	case unicode.In(r, unicode.Hiragana, unicode.Katakana):
		return Kana
	case unicode.Is(unicode.Han, r):
		return Han
	case unicode.Is(unicode.Hangul, r):
		return Hangul
	case unicode.Is(unicode.Latin, r):
		return Latin
	case unicode.IsLetter(r):
		return OtherLetter
	}
	return NoScript
}

// Detect returns the language of text by its script, first match wins: any
// kana (or ー) is Japanese; any Hangul is Korean; any other Han is hint
// (Chinese when hint is Other: a Japanese person's 了解 or 東京都庁 is
// Japanese only when the caller says so); none of these is Other.
func Detect(text string, hint Language) Language {
	var sawHan, sawHangul bool
	for _, r := range text {
		if r < 0x1100 {
			continue // below Hangul Jamo there is no CJK letter
		}
		if r == 'ー' {
			return Japanese
		}
		switch ScriptOf(r) {
		case Kana:
			return Japanese
		case Hangul:
			sawHangul = true
		case Han:
			sawHan = true
		}
	}
	switch {
	case sawHangul:
		return Korean
	case sawHan:
		if hint == Other {
			return Chinese
		}
		return hint
	}
	return Other
}

// Shares returns the shares of text's letters that are kana, Han, Hangul
// and Latin (ScriptOf; every other letter counts in the whole only), all 0
// for a text without letters: a text's language, roughly, as the features of
// rerank's relevance model read it.
func Shares(text string) (kana, han, hangul, latin float64) {
	n := 0
	for _, r := range text {
		switch ScriptOf(r) {
		case Kana:
			kana++
		case Han:
			han++
		case Hangul:
			hangul++
		case Latin:
			latin++
		case NoScript:
			continue
		}
		n++
	}
	if n == 0 {
		return 0, 0, 0, 0
	}
	f := float64(n)
	return kana / f, han / f, hangul / f, latin / f
}

// Pattern is the regular expression (in the syntax Go's regexp and JSON
// Schema share) of what Parse accepts: "", or a BCP 47 tag whose primary
// subtag is ja, zh, ko or en in any case (BCP 47 tags are case-insensitive),
// each further subtag 1 to 8 ASCII letters or digits. The API description
// (docs/openapi.json) gives it as "lang"'s pattern.
const Pattern = `^(?:(?:[Jj][Aa]|[Zz][Hh]|[Kk][Oo]|[Ee][Nn])(?:-[0-9A-Za-z]{1,8})*)?$`

var patternRE = regexp.MustCompile(Pattern)

// Parse reads a language hint: "" or a BCP 47 tag whose primary subtag is
// ja, zh, ko or en ("ja-JP", "zh-Hant", "JA"), exactly what Pattern matches
// (no surrounding space); en, and "", are Other.
func Parse(tag string) (Language, error) {
	if !patternRE.MatchString(tag) {
		return Other, fmt.Errorf("language %q: want ja, zh, ko or en (a BCP 47 tag such as ja-JP)", tag)
	}
	primary, _, _ := strings.Cut(strings.ToLower(tag), "-")
	switch Language(primary) {
	case Japanese, Chinese, Korean:
		return Language(primary), nil
	}
	return Other, nil
}
