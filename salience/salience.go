// Package salience says how worth remembering one exchange is, from its own
// text, in Japanese, Chinese, Korean and English, without a language model:
// a life event (moved, 手術, 합격, 搬家) weighs more than a plan, a name or a
// number, and those more than a greeting, a laugh or today's weather.
//
// Salience works in two plain steps. Features reads the exchange's parts:
// which of the word lists (lexicon.go) the person's words hold, whether
// they name someone, give a number, tell of the past or ask the companion a
// question, whether they are small talk (package smalltalk), how long they
// are, whether the companion's reply congratulates or consoles, and which
// scripts they are written in. Model then weighs the parts: a logistic
// model fitted on people's ratings of exchanges (0 everyday … 3 a life
// event; cmd/bench salience), embedded as model.json. Score is its
// probability, in [0, 1]: about a third of the rating a person would give.
//
// It does no I/O and keeps no state; every function is safe for concurrent
// use.
package salience

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/smalltalk"
	"github.com/omoide/omoide/timeexpr"
)

// part is a word list of the lexicon.
type part int

const (
	partEvent part = iota
	partHealth
	partWork
	partFamily
	partPet
	partHome
	partPlan
	partCares
	partGreeting
	partReaction
	partWeather
	partMeal
	partTired
	numParts
)

// FeatureNames name the features Features writes, in order.
var FeatureNames = []string{
	"event", "health", "work", "family", "pet", "home", "plan", "cares",
	"greeting", "reaction", "weather", "meal", "tired",
	"names", "numbers", "past", "question", "smalltalk", "length", "reply_length",
	"kana", "han", "hangul", "latin",
}

// NumFeatures is len(FeatureNames).
const NumFeatures = 24

// The features past the word lists', by their index in FeatureNames.
const (
	featNames = int(numParts) + iota
	featNumbers
	featPast
	featQuestion
	featSmallTalk
	featLength
	featReplyLength
	featKana
	featHan
	featHangul
	featLatin
)

// maxCount bounds a count feature: a third hit of a list says little more.
const maxCount = 2

// Features writes the features of an exchange, the person's words user and
// the companion's reply, into dst (grown to NumFeatures) and returns it.
func Features(user, reply string, dst []float64) []float64 {
	dst = append(dst[:0], make([]float64, NumFeatures)...)
	u := timeexpr.Normalize(user)
	countParts(u, dst, false)
	countParts(strings.ToLower(reply), dst, true) // its words need no NFKC
	dst[featNames] = float64(min(maxCount, names(user)))
	dst[featNumbers] = float64(min(maxCount, numbers(u)))
	dst[featPast] = bit(past(u))
	dst[featQuestion] = bit(question(u))
	dst[featSmallTalk] = bit(smalltalk.IsSmallTalk(u))
	dst[featLength] = lengthOf(u)
	dst[featReplyLength] = lengthOf(reply)
	dst[featKana], dst[featHan], dst[featHangul], dst[featLatin] = lang.Shares(user)
	return dst
}

// lengthOf is a text's length in characters on a log scale: 0 empty, 1 at
// 200 characters, a long message.
func lengthOf(s string) float64 {
	const long = 5.3 // ln(200)
	n := utf8.RuneCountInString(strings.TrimSpace(s))
	return min(1.5, ln1p(float64(n))/long)
}

// countParts adds the hits of each word list in normalized s to dst: the
// companion's congratulation or sympathy from the reply, every other list
// from the person's words.
func countParts(s string, dst []float64, reply bool) {
	var seen [numParts]int
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < utf8.RuneSelf && isAlnum(byte(r)) && i > 0 && isAlnum(s[i-1]) {
			i += size // inside an ASCII word
			continue
		}
		n := size
		for _, w := range index[r] { // longest first: the first match is the word
			if (w.part == partCares) != reply || !strings.HasPrefix(s[i:], w.text) {
				continue
			}
			end := i + len(w.text)
			if isAlnum(w.text[len(w.text)-1]) && end < len(s) && isAlnum(s[end]) {
				continue // an ASCII word must end a word
			}
			if seen[w.part] < maxCount {
				seen[w.part]++
				dst[w.part]++
			}
			n = len(w.text)
			break
		}
		i += n
	}
}

// entry is a word of a list.
type entry struct {
	text string
	part part
}

// index maps a first rune to the words starting with it, longest first. It
// is built once and only read afterwards.
var index = func() map[rune][]entry {
	idx := map[rune][]entry{}
	for p, words := range lexicon {
		for _, w := range words {
			w = timeexpr.Normalize(w)
			r, _ := utf8.DecodeRuneInString(w)
			idx[r] = append(idx[r], entry{w, p})
		}
	}
	for r, es := range idx {
		sortEntries(es)
		idx[r] = es
	}
	return idx
}()

// sortEntries orders a rune's words longest first, then by list and text,
// so that the index is the same on every run.
func sortEntries(es []entry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && less(es[j], es[j-1]); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

func less(a, b entry) bool {
	if len(a.text) != len(b.text) {
		return len(a.text) > len(b.text)
	}
	if a.part != b.part {
		return a.part < b.part
	}
	return a.text < b.text
}

// honorifics follow a person's name: 美咲さん, 민지 씨, 王老师.
var honorifics = []string{"さん", "ちゃん", "くん", "君", "先生", "先輩", "課長", "部長", "씨", "님", "선배", "쌤", "老师", "老師", "同学", "同學"}

// names counts the names the text gives: a word before an honorific, and in
// Latin script a capitalized word that does not start a sentence (Biscuit,
// not "I" or the first word).
func names(text string) int {
	n := 0
	for _, h := range honorifics {
		for s := text; ; {
			i := strings.Index(s, h)
			if i < 0 {
				break
			}
			if r, _ := utf8.DecodeLastRuneInString(s[:i]); i > 0 && unicode.IsLetter(r) {
				n++
			}
			s = s[i+len(h):]
		}
	}
	start := true
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) }) {
		r, _ := utf8.DecodeRuneInString(w)
		if !start && r < utf8.RuneSelf && unicode.IsUpper(r) && w != "I" && !strings.HasPrefix(w, "I'") {
			n++
		}
		last, _ := utf8.DecodeLastRuneInString(w)
		start = strings.ContainsRune(".!?。！？", last)
	}
	return n
}

// numbers counts the runs of digits in normalized s (NFKC made full-width
// digits ASCII).
func numbers(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		d := s[i] >= '0' && s[i] <= '9'
		if d && !in {
			n++
		}
		in = d
	}
	return n
}

// pastMarks are the endings of a told past: 行った, ました, 了, 했어, went.
var pastMarks = []string{"った", "ました", "でした", "だった", "かった", "てきた", "ちゃった", "んだ", "た。", "た!", "たよ", "たの", "たけど",
	"了", "过", "過", "었", "았", "했", "였"}

// pastWords are English past forms that no "-ed" ending shows.
var pastWords = map[string]bool{"was": true, "were": true, "went": true, "got": true, "had": true, "did": true, "made": true, "took": true,
	"saw": true, "came": true, "left": true, "told": true, "said": true, "found": true, "lost": true, "gave": true, "met": true}

// past reports whether normalized s tells of something that happened.
func past(s string) bool {
	for _, m := range pastMarks {
		if strings.Contains(s, m) {
			return true
		}
	}
	if strings.HasSuffix(strings.TrimRightFunc(s, notLetter), "た") {
		return true
	}
	for _, w := range strings.FieldsFunc(s, notLetter) {
		if pastWords[w] || len(w) > 4 && strings.HasSuffix(w, "ed") {
			return true
		}
	}
	return false
}

// question reports whether normalized s ends in a question: a question mark
// or a question's last word (か, 吗, 呢, 까, 니).
func question(s string) bool {
	t := strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.So, r) })
	if strings.HasSuffix(t, "?") {
		return true
	}
	t = strings.TrimRightFunc(t, notLetter)
	for _, e := range []string{"か", "吗", "嗎", "呢", "까", "니", "냐"} {
		if strings.HasSuffix(t, e) {
			return true
		}
	}
	return false
}

func notLetter(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func bit(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
