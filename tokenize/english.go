package tokenize

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// englishLight reports whether an English query term, as the stemming
// analyzers write it ("go" for going, "someth" for something, "realli" for
// really), is a light word (Lexicon.Light): a light verb or auxiliary and
// its irregular forms (get, got; go, went; make; take; say; see, saw;
// think, thought; know; feel, felt; want; like; start; would), a vague noun
// (thing, someth, stuff, time, way), an evaluation (good, better, bad,
// nice, okay), a hedge or intensifier (realli, still, actual, mayb, final),
// a vague measure or order (day, new, long, littl, big, first, last), an
// interjection or chat filler (lol, yeah, haha, thank, gonna, kinda, w of
// Japanese chat's laughter) or a pronoun the stop words lack (us). They fit
// whatever a message is about: "I feel like I got better" says nothing of
// a topic. Words as often content are not light (pretty, quite, whose stem
// is quit; tired), nor are concrete time words (today, tonight), as 今日 is
// not. A term of the unstemmed Kagome analyzer is light only when spelled
// as its stem (get, but not getting).
func englishLight(term string) bool {
	switch term {
	case "get", "got", "gotten", "go", "goe", "gone", "went", "done", "make", "made",
		"take", "took", "taken", "come", "came", "give", "gave", "given",
		"say", "said", "tell", "told", "talk", "see", "saw", "seen", "tri", "let",
		"need", "want", "like", "feel", "felt", "think", "thought", "know", "knew", "known",
		"guess", "mean", "meant", "seem", "happen", "rememb",
		"start", "begin", "began", "begun", "finish",
		"would", "could", "might", "must", "shall",
		"good", "better", "best", "well", "bad", "wors", "worst", "nice", "great", "fine",
		"cool", "awesom", "okay", "ok", "alright",
		"thing", "someth", "anyth", "everyth", "noth", "stuff", "someon", "anyon", "everyon",
		"somebodi", "anybodi", "everybodi", "nobodi", "lot", "bit", "kind", "sort", "time", "way",
		"realli", "still", "also", "even", "though", "tho", "actual", "liter", "definit",
		"much", "mayb", "probabl", "alreadi", "ever", "never", "alway", "sometim", "anyway",
		"yet", "super", "recent",
		"day", "new", "long", "final", "absolut", "total", "whole", "littl", "big", "real", "right",
		"mani", "first", "last", "next", "just",
		"lol", "lmao", "haha", "hahaha", "hehe", "yeah", "yes", "yep", "yup", "nope", "oh", "ah",
		"hey", "hi", "hello", "wow", "omg", "hmm", "um", "uh", "ugh", "pleas", "thank", "sure",
		"idk", "btw", "tbh", "w", "ww", "www",
		"gonna", "wanna", "gotta", "kinda", "sorta", "lemm", "us", "ya":
		return true
	}
	return false
}

// isFragment reports whether a query term of a stemming analyzer is no word
// at all, so that Terms leaves it out: the nominalizer of Japanese, ん and
// の (行くんだ, 行くのが: kagome files them as dependent nouns, while every
// other particle is dropped), the head of an English negative contraction
// that is no word (didn, isn, couldn) and the contractions written without
// their apostrophe (im, dont, cant, wont, ive, youll), with u, ur and yall
// for you, your and you all: the stop words they spell, and ll and ve,
// which are no words even apart. The pieces after an apostrophe ('m, 're,
// 'd) and the head of n't go before they are terms (blankContractions), so
// that m and d stay words elsewhere (vitamin d). Words a contraction might
// also be (id, ill, well, wed, won, haven) are left alone.
func isFragment(term string) bool {
	switch term {
	case "ん", "の",
		"didn", "doesn", "isn", "wasn", "aren", "weren", "hasn", "hadn",
		"couldn", "wouldn", "shouldn", "mustn", "needn", "mightn", "shan",
		"im", "ive", "youv", "youll", "youd", "theyr", "theyv", "theyll", "theyd",
		"weve", "hes", "hed", "shes", "whos", "itll", "thatll",
		"dont", "didnt", "doesnt", "isnt", "arent", "wasnt", "werent", "hasnt", "havent", "hadnt",
		"couldnt", "wouldnt", "shouldnt", "wont", "cant", "aint", "mustnt", "neednt",
		"ll", "ve", "u", "ur", "yall":
		return true
	}
	return false
}

// contractionTails are the pieces an apostrophe cuts off an English word
// that are no words of their own: I'm, she's, can't, you'll, I've, we're,
// he'd.
var contractionTails = []string{"s", "t", "m", "ll", "ve", "re", "d"}

// blankContractions returns the normalized query text with the English
// contraction pieces written as spaces, so that they never become terms:
// a tail after an apostrophe ('m, 's, 't, 'll, 've, 're, 'd), and before
// 't the head that ends in n (don, didn, won, haven, ain: "won't" is no
// "won", "haven't" no "haven"). "I'm" would otherwise give the term m,
// which matches every text with "I'm". An apostrophe is ', ’, ‘, ` or
// ´ (which NFKC writes as a space and a combining acute). The text is
// returned as it is when it has none; else each piece's bytes become
// spaces, so runs of other scripts do not move.
func blankContractions(text string) string {
	if !strings.ContainsAny(text, "'’‘`\u0301") {
		return text
	}
	var b []byte // the copy, made at the first piece
	for i := 0; i < len(text); {
		w := apostropheAt(text, i)
		if w == 0 {
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
			continue
		}
		head := asciiWordBefore(text, i)
		j := i + w
		k := j
		for k < len(text) && text[k] >= 'a' && text[k] <= 'z' {
			k++
		}
		if head < i && k > j && wordEnds(text, k) && slices.Contains(contractionTails, text[j:k]) {
			if b == nil {
				b = []byte(text)
			}
			blank(b, j, k)
			if text[j:k] == "t" && text[i-1] == 'n' {
				blank(b, head, i)
			}
		}
		i = j
	}
	if b == nil {
		return text
	}
	return string(b)
}

// apostropheAt returns the byte width of the apostrophe at text[i:], 0 if
// there is none (see blankContractions).
func apostropheAt(text string, i int) int {
	switch {
	case text[i] == '\'' || text[i] == '`':
		return 1
	case strings.HasPrefix(text[i:], "’"), strings.HasPrefix(text[i:], "‘"):
		return len("’")
	case strings.HasPrefix(text[i:], " \u0301"):
		return len(" \u0301")
	}
	return 0
}

// asciiWordBefore returns where the word of the letters a to z that ends at
// text[i] begins, i when there is none or it may be part of a longer run
// (scriptRuns: ab1c'd, éa's, or after a mark), which is no English word of
// its own.
func asciiWordBefore(text string, i int) int {
	h := i
	for h > 0 && text[h-1] >= 'a' && text[h-1] <= 'z' {
		h--
	}
	if h > 0 {
		if r, _ := utf8.DecodeLastRuneInString(text[:h]); inWordRun(r) || unicode.IsMark(r) {
			return i
		}
	}
	return h
}

// wordEnds reports whether the word run (scriptRuns) ends at text[k]: no
// letter or digit of a word run, nor a mark, follows.
func wordEnds(text string, k int) bool {
	if k == len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[k:])
	return !inWordRun(r) && !unicode.IsMark(r)
}

// inWordRun reports whether r belongs in a runWord run (scriptRuns).
func inWordRun(r rune) bool { return r != utf8.RuneError && isWordRune(r) && !isCJK(r) }

// blank writes spaces over b[i:j].
func blank(b []byte, i, j int) {
	for ; i < j; i++ {
		b[i] = ' '
	}
}

// englishFormsTable is english-forms.txt, the irregular forms of common
// English words from WordNet 3.0's exception lists (see cmd/formsgen and
// NOTICE.md): a line a lemma, its stems as the stemming analyzers index
// them, the lemma's first ("eat ate eaten", "mous mice", "good best
// better").
//
//go:embed english-forms.txt
var englishFormsTable string

// englishForms is the table read once, on first use, and only read after:
// each stem's other stems, over every line it is on, without repeats.
var englishForms = sync.OnceValue(func() map[string][]string {
	forms := map[string][]string{}
	for line := range strings.Lines(englishFormsTable) {
		stems := strings.Fields(line)
		for _, s := range stems {
			for _, o := range stems {
				if o != s && !slices.Contains(forms[s], o) {
					forms[s] = append(forms[s], o)
				}
			}
		}
	}
	return forms
})

// isASCIIWord reports whether term is a word of the letters a to z.
func isASCIIWord(term string) bool {
	if term == "" {
		return false
	}
	for i := 0; i < len(term); i++ {
		if term[i] < 'a' || term[i] > 'z' {
			return false
		}
	}
	return true
}
