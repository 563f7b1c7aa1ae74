package tokenize

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/omoide/omoide/lang"
	"golang.org/x/text/unicode/norm"
)

// NameFinder is an Analyzer that also finds the names in a text: the proper
// nouns (people, places, organisations, works) that a message can be about.
type NameFinder interface {
	Analyzer
	// Names returns the terms, as Terms makes them, of the names in text,
	// without repeats, in order of first appearance.
	Names(text string) []string
}

// Names returns the terms of the names in Latin script in text: a word of
// two or more letters written with a capital and then small letters
// ("Caroline", "Barcelona"), or of three or more capitals ("LGBTQ"), that
// does not begin a sentence (the start of the text, or after . ! ? or a line
// break, opening quotes and brackets skipped, and not after a title such as
// "Dr."); month and weekday names and the titles Mr, Mrs, Ms, Dr, St and
// Prof are not names. Capitals are the only mark of a name without a tagger,
// so a name that begins a sentence, or one written in lower case, is missed.
//
// Only a text written in Latin script has names (lang.Detect: Other): in a
// Japanese, Chinese or Korean message a Latin word is a borrowing that the
// memory may hold transliterated (Yahoo! in a Korean message, 야후 in the
// episode it paraphrases: 17 of korsts-ko-dev's 26 messages with a Latin name,
// 13 of them similar pairs). Japanese proper nouns are not reported either:
// the IPA dictionary's tags are too loose for a decision that drops every
// memory. In testdata/ja it cut "セレナ、" into セ and the given name レナ, and
// tagged 日前 (of 5日前) a place.
func (a kagomeAnalyzer) Names(text string) []string {
	var names []string
	add := func(term string) {
		if term != "" && !slices.Contains(names, term) {
			names = append(names, term)
		}
	}
	text = norm.NFKC.String(text)
	if lang.Detect(text, lang.Chinese) != lang.Other {
		return nil
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) || isCJK(r) {
			i += size
			continue
		}
		j := i
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) || isCJK(r) {
				break
			}
			j += size
		}
		if word := text[i:j]; latinName(word) && !sentenceStart(text[:i]) {
			for _, t := range a.Terms(word) {
				add(t)
			}
		}
		i = j
	}
	return names
}

// latinName reports whether word, a run of letters, is written as a name.
func latinName(word string) bool {
	first, size := utf8.DecodeRuneInString(word)
	if !unicode.IsUpper(first) || !unicode.Is(unicode.Latin, first) {
		return false
	}
	rest := word[size:]
	n := utf8.RuneCountInString(word)
	switch {
	case n >= 2 && !strings.ContainsFunc(rest, func(r rune) bool { return !unicode.IsLower(r) }):
	case n >= 3 && !strings.ContainsFunc(rest, func(r rune) bool { return !unicode.IsUpper(r) }):
	default:
		return false
	}
	return !notNames[strings.ToLower(word)]
}

// notNames are capitalized words that name no thing a memory holds: months,
// weekdays (time expressions) and titles.
var notNames = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`january february march april may june july august september october november december
		jan feb mar apr jun jul aug sep sept oct nov dec
		monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun`) {
		m[w] = true
	}
	for w := range titles {
		m[w] = true
	}
	return m
}()

// sentenceStart reports whether a word after before begins a sentence.
func sentenceStart(before string) bool {
	before = strings.TrimRightFunc(before, func(r rune) bool {
		return r != '\n' && unicode.IsSpace(r) || strings.ContainsRune(`"'“‘「『([{`, r)
	})
	if before == "" {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(before)
	if last == '.' { // "Dr. Seuss" goes on
		word := strings.TrimSuffix(before, ".")
		if k := strings.LastIndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) }); k >= 0 {
			word = word[k+1:]
		}
		if titles[strings.ToLower(word)] {
			return false
		}
	}
	return strings.ContainsRune(".!?。！？\n", last)
}

// titles come before a name, with or without a full stop.
var titles = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "prof": true}
