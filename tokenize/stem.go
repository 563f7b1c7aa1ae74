package tokenize

import "github.com/kljensen/snowball/english"

// stemEnglish returns the English Snowball stem of a lower-case word of ASCII
// letters ("painting" → "paint", "reminds" → "remind"), and any other word
// (digits, other scripts, words of one or two letters) as it is.
func stemEnglish(word string) string {
	if len(word) < 3 {
		return word
	}
	for i := 0; i < len(word); i++ {
		if c := word[i]; c < 'a' || c > 'z' {
			return word
		}
	}
	return english.Stem(word, false)
}
