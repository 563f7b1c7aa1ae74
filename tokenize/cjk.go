package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/omoide/omoide/lang"
)

// CJKName is the Name of the CJK analyzer; CJKJapaneseName of the one that
// reads Han-only text as Japanese (CJKFor). CJK2Name and CJK2JapaneseName
// are those of their second version (CJK2, CJK2For), the default of new
// stores. A store records the name, so a name's terms never change: a fix
// is a new version.
const (
	CJKName          = "cjk"
	CJKJapaneseName  = "cjk+ja"
	CJK2Name         = "cjk2"
	CJK2JapaneseName = "cjk2+ja"
)

// cjkAnalyzer analyzes each text by its language (lang.Detect): Japanese and
// Other exactly as KagomeSnowball does; Chinese and Korean as overlapping
// character bigrams of their Han and Hangul runs. han is the language of
// Han-only text.
type cjkAnalyzer struct {
	snowballAnalyzer
	han lang.Language
}

// CJK returns the language-aware analyzer, the default of new stores before
// CJK2. Its
// pipeline, per text:
//
//   - normalize: NFKC, then lower-case;
//   - detect: the text's language by script (lang.Detect, Han-only text as
//     Chinese);
//   - segment: Japanese (and text without Han, kana or Hangul) as
//     KagomeSnowball segments it, so Japanese and English stores index and
//     search as before; Chinese and Korean runs of Han and Hangul become
//     their overlapping character bigrams (一个人: 一个 个人; 학교에서: 학교 교에
//     에서; a one-character run is that character), Chinese runs their
//     characters too (一 个 人), other runs one word each, English stemmed;
//   - filter: nothing more is dropped from an index; a query's Chinese and
//     Korean bigrams that only ask (什么, 哪里, 언제, 어디) and the terms that
//     are no words (the m of I'm: isFragment, blankContractions) are left
//     out of Terms.
//
// Bigrams suit both languages without a dictionary: Chinese is written
// without spaces and its words are mostly two characters, many one (猫, 去:
// the characters as terms too lifted cmrc-zh-dev's R@1 from 0.939 to 0.951);
// a Korean word glues particles and endings to its stem (학교에서, 학교는),
// which a whole-word term never matches but a bigram (학교) does (Korean
// characters as terms, whole words, stems without their particles and
// kagome's Korean dictionary measured no better: docs/quality.md). Kagome's IPA dictionary, which
// KagomeSnowball ran over every text, cut Chinese as if it were Japanese and
// left Hangul words whole (docs/quality.md, "Chinese and Korean").
func CJK() Analyzer { return CJKFor(lang.Chinese) }

// CJKFor returns the CJK analyzer that reads text written in Han alone (no
// kana, no Hangul) as han: Chinese (CJK, "cjk") or Japanese ("cjk+ja", for a
// store of Japanese speakers, whose 温泉旅行 or 了解 then meets their other
// messages' kagome terms). Any other han is Chinese.
func CJKFor(han lang.Language) Analyzer { return cjkFor(han, false) }

// CJK2 returns the second version of the CJK analyzer, the default of new
// stores: CJK with two more
// steps for Japanese (mora.go): normalize a small vowel that repeats the
// vowel before it as ー (へぇ: へー), and after kagome, the mora repair, which
// writes in katakana, and segments again, a word kagome split inside a mora:
// にゃんこ is ニャンコ, not ゃんこ; ぴゅー is ピュー, not ぴゅ; きゃりー is キャリー,
// not く. Every other text has CJK's terms. Its name is "cjk2".
func CJK2() Analyzer { return CJK2For(lang.Chinese) }

// CJK2For is CJKFor of the second version: "cjk2", or "cjk2+ja" when
// Han-only text is Japanese.
func CJK2For(han lang.Language) Analyzer { return cjkFor(han, true) }

func cjkFor(han lang.Language, mora bool) Analyzer {
	if han != lang.Japanese {
		han = lang.Chinese
	}
	return cjkAnalyzer{snowballAnalyzer{kagomeAnalyzer{mode: kagomeMode, stem: true, kinship: true, mora: mora}}, han}
}

// Name returns "cjk", or "cjk+ja" when Han-only text is Japanese; "cjk2"
// and "cjk2+ja" for the second version.
func (a cjkAnalyzer) Name() string {
	switch {
	case a.mora && a.han == lang.Japanese:
		return CJK2JapaneseName
	case a.mora:
		return CJK2Name
	case a.han == lang.Japanese:
		return CJKJapaneseName
	}
	return CJKName
}

// Index returns all terms of text, repeats included, joined by single spaces.
func (a cjkAnalyzer) Index(text string) string {
	var c collector
	a.analyze(text, &c, false)
	return c.index()
}

// Terms returns the terms of text without repeats, in order of first
// appearance, without the interrogatives, stop words and fragments (see
// KagomeSnowball's Terms and isQuestionBigram); in Chinese and Korean text,
// an English word is left out only when it is a fragment (isFragment).
func (a cjkAnalyzer) Terms(text string) []string {
	var c collector
	language := a.analyze(text, &c, true)
	if language == lang.Japanese || language == lang.Other {
		return a.kagomeAnalyzer.filterTerms(c.unique())
	}
	terms := c.unique()
	out := terms[:0]
	for _, t := range terms {
		if !isQuestionBigram(t) && !isFragment(t) {
			out = append(out, t)
		}
	}
	return out
}

// analyze adds the terms of text to c and returns the language it read. A
// query (Terms) leaves out the last bigram of a Korean word of three or more
// syllables that ends in a particle or an ending (남자가: 자가; 먹었다: 었다),
// which carries no meaning of its own: korquad-ko-dev R@1 0.926 → 0.938;
// and the pieces of English contractions (blankContractions).
func (a cjkAnalyzer) analyze(text string, c *collector, query bool) lang.Language {
	norm := normalize(text)
	language := lang.Detect(norm, a.han)
	if query {
		norm = blankContractions(norm)
	}
	if language == lang.Japanese || language == lang.Other {
		a.kagomeAnalyzer.analyzeNormalized(norm, c)
		return language
	}
	scriptRuns(norm, func(kind runKind, run string) {
		if kind == runCJK || hasHangul(run) {
			if query && language == lang.Korean {
				run = trimParticle(run)
			}
			addBigrams(run, c)
			if language == lang.Chinese && utf8.RuneCountInString(run) > 1 {
				for _, r := range run { // and its characters: 猫, 我, 去 are words
					c.add(string(r))
				}
			}
			return
		}
		c.add(stemEnglish(run))
	})
	return language
}

// trimParticle returns a Korean word of three or more syllables without its
// last syllable when that is a particle or an ending (see analyze), and a
// word of two, a one-syllable noun and its particle, as the noun (눈은: 눈;
// 비가, 집에, 물을), whose index forms Lexicon.Forms gives: its bigram 눈은
// would miss 눈이. Two syllables are a noun and its particle only when the
// particle is one the noun's last sound takes (nounParticle): 나이, 사과 and
// 치고 stay whole.
func trimParticle(run string) string {
	last, size := utf8.DecodeLastRuneInString(run)
	switch n := utf8.RuneCountInString(run); {
	case n == 2:
		if first, _ := utf8.DecodeRuneInString(run); nounParticle(first, last) {
			return run[:len(run)-size]
		}
		return run
	case n < 3 || !strings.ContainsRune(particleEnds, last):
		return run
	}
	return run[:len(run)-size]
}

// particleEnds are the last syllables of particles and endings: 가 이 를 을 는
// 은 (subject, object, topic), 에 의 도 로 와 과 랑 만 서 게 (에서, 에게), 고 다
// 요 (연결, 종결 endings).
const particleEnds = "가이를을는은에의도로와과랑만서게고다요"

// hasHangul reports whether s holds a Hangul letter.
func hasHangul(s string) bool {
	for _, r := range s {
		if r >= 0x1100 && unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}

// addBigrams adds the overlapping character bigrams of run to c (the run
// itself when it is one character).
func addBigrams(run string, c *collector) {
	_, first := utf8.DecodeRuneInString(run)
	if first == len(run) {
		c.add(run)
		return
	}
	// i is the start of the current bigram, j the start of its second
	// character; each bigram is a substring of run.
	i, j := 0, first
	for j < len(run) {
		_, size := utf8.DecodeRuneInString(run[j:])
		c.add(run[i : j+size])
		i, j = j, j+size
	}
}

// isQuestionBigram reports whether a Chinese or Korean bigram only asks:
// what, where, who, when, how, why, how many (the person does not know it,
// so an episode that holds the word is no better an answer); 몇, "how
// many", a one-syllable word (몇 점이었지?), with its bigrams of a unit
// (몇시, 몇번, 몇살), as 多少 and 几个 are; and the bigrams of 어디 and 뭐
// with the copula (어디였지: 디였; 뭐야, 뭐였더라: 뭐였).
func isQuestionBigram(t string) bool {
	switch t {
	case "什么", "甚么", "哪里", "哪儿", "哪个", "哪些", "怎么", "怎样", "为什", "谁的", "多少", "几个", "何时",
		"무엇", "무슨", "어디", "누구", "언제", "어떻", "떻게", "어느", "얼마", "몇몇", "왜요",
		"몇", "몇시", "몇번", "몇개", "몇살", "몇명", "디였", "디야", "뭐였", "뭐야":
		return true
	}
	return false
}

// LanguageReader is an Analyzer that can read a text as written in a
// language its script does not tell (Han alone: Japanese or Chinese): the
// language hint of a request.
type LanguageReader interface {
	Analyzer
	// ForLanguage returns the analyzer that reads Han-only text as hint.
	ForLanguage(hint lang.Language) Analyzer
	// Language returns the language it reads Han-only text as: the hint
	// the analyzer gives lang.Detect.
	Language() lang.Language
}

// ForLanguage returns the CJK analyzer of a's version that reads Han-only
// text as hint: Japanese with kagome (東京都庁: 東京 都庁), any other language
// as Chinese bigrams (東京 京都 都庁).
func (a cjkAnalyzer) ForLanguage(hint lang.Language) Analyzer { return cjkFor(hint, a.mora) }

// Language returns the language a reads Han-only text as: Japanese for
// "cjk+ja" and "cjk2+ja", else Chinese.
func (a cjkAnalyzer) Language() lang.Language { return a.han }
