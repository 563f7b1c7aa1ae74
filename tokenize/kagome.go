package tokenize

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/ikawaha/kagome-dict/ipa"
	"github.com/ikawaha/kagome/v2/tokenizer"
	"github.com/kljensen/snowball/english"
	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/synonym"
)

// KagomeName is the Name of the Kagome analyzer.
const KagomeName = "kagome"

// KagomeSnowballName is the Name of the KagomeSnowball analyzer.
const KagomeSnowballName = "kagome+snowball"

// kagomeMode is the kagome segmentation mode of the Kagome analyzer.
//
// Search, not Normal: Search mode penalizes long all-kanji words, so compound
// nouns that the IPA dictionary lists whole are split into their parts
// (関西国際空港 → 関西 国際 空港, 国立国会図書館 → 国立 国会 図書館,
// 株式会社 → 株式 会社). With Normal mode a query for 空港, 図書館 or 会社 does
// not find those compounds; on ordinary sentences and katakana words both modes
// segment alike (TestKagomeSearchModeRecall measures the difference). A query
// for a whole compound still matches, because it is split the same way.
const kagomeMode = tokenizer.Search

// droppedPOS reports whether the Kagome analyzer drops a token of the IPA part
// of speech pos (its first feature): symbols and punctuation, particles,
// auxiliary verbs and fillers carry no content.
func droppedPOS(pos string) bool {
	switch pos {
	case "記号", "助詞", "助動詞", "フィラー":
		return true
	}
	return false
}

// kagomeDict is the lazily loaded IPA dictionary and the tokenizer over it,
// the package's only mutable state. It is written once, under once.
var kagomeDict struct {
	once sync.Once
	tok  *tokenizer.Tokenizer
	err  error
}

// loadKagome returns the shared tokenizer, loading the IPA dictionary on first
// use (about 0.8 s and 90 MB). A kagome Tokenizer is safe for concurrent use:
// its methods have value receivers, the dictionary is only read, and each
// Analyze call takes its own lattice from a sync.Pool.
func loadKagome() (*tokenizer.Tokenizer, error) {
	kagomeDict.once.Do(func() {
		defer func() {
			// ipa.Dict panics when its embedded dictionary cannot be read.
			if r := recover(); r != nil {
				kagomeDict.tok = nil
				kagomeDict.err = fmt.Errorf("tokenize: load kagome IPA dictionary: %v", r)
			}
		}()
		tok, err := tokenizer.New(ipa.Dict(), tokenizer.OmitBosEos())
		if err != nil {
			kagomeDict.err = fmt.Errorf("tokenize: create kagome tokenizer: %w", err)
			return
		}
		kagomeDict.tok = tok
	})
	return kagomeDict.tok, kagomeDict.err
}

// Warm loads the Kagome analyzer's IPA dictionary now rather than on first use,
// so that a store can pay the load (about 0.8 s, 90 MB) when it opens and
// report a failure there. Later calls return at once, with the same result.
func Warm() error {
	_, err := loadKagome()
	return err
}

// kagomeAnalyzer segments Japanese with kagome and the IPA dictionary.
type kagomeAnalyzer struct {
	mode    tokenizer.TokenizeMode
	stem    bool // English words become their Snowball stems
	kinship bool // everyday words for family members become the standard ones (kinship.go)
	mora    bool // words kagome split inside a mora are joined again (mora.go)
}

// Kagome returns the default analyzer. It is safe for concurrent use, and all
// its values share one dictionary. Its pipeline:
//
//   - normalize: NFKC, then lower-case;
//   - segment: split into script runs (see scriptRuns). A run of Han, Hiragana
//     and Katakana (with ー and 々) is segmented by kagome v2 with the IPA
//     dictionary in search mode; any other run of letters and digits (Latin,
//     digits, Hangul, ...) is one term, since kagome splits those oddly;
//   - filter: kagome tokens whose part of speech is 記号 (symbol), 助詞
//     (particle), 助動詞 (auxiliary verb) or フィラー (filler) are dropped, and
//     every other token becomes its base form (食べ → 食べる), or its surface
//     when it has none. Unknown words (a made-up name, a rare kanji) keep their
//     surface whatever part of speech kagome guesses, so every Han or kana run
//     the dictionary cannot place still yields terms. Tokens made only of ー
//     or 々 are dropped.
//
// The dictionary is loaded when the first Han or kana text is analyzed; call
// Warm to load it earlier. Should
// it fail to load, which only a corrupt build can cause, each CJK run becomes
// one term, as under Raw, and Warm reports the error.
func Kagome() Analyzer { return kagomeAnalyzer{mode: kagomeMode} }

// KagomeSnowball returns the default analyzer: Kagome, with one more filter
// step for English: a word of ASCII letters becomes its English Snowball
// (Porter2) stem, so that "painting", "painted" and "paints" are one term
// ("paint"). Words of other scripts, and Japanese, are as under Kagome.
// Measured on locomo-dev (English), BM25 alone: single-hop Recall@5
// 0.675 → 0.696, multi-hop 0.180 → 0.233, temporal 0.607 → 0.639
// (docs/quality.md).
func KagomeSnowball() Analyzer { return snowballAnalyzer{kagomeAnalyzer{mode: kagomeMode, stem: true}} }

// snowballAnalyzer is KagomeSnowball: its terms are spelled as package
// synonym's table, so it is a Thesaurus.
type snowballAnalyzer struct{ kagomeAnalyzer }

// Synonyms returns the synonyms of a query term from package synonym.
func (snowballAnalyzer) Synonyms(term string) []string { return synonym.Of(term) }

// LoadSynonyms loads package synonym's table now.
func (snowballAnalyzer) LoadSynonyms() error { return synonym.Load() }

// Name returns "kagome", or "kagome+snowball" when English words are stemmed.
func (a kagomeAnalyzer) Name() string {
	if a.stem {
		return KagomeSnowballName
	}
	return KagomeName
}

// Warm loads the dictionary now (see Warm); a store calls it when it opens.
func (kagomeAnalyzer) Warm() error { return Warm() }

// Index returns all terms of text, repeats included, joined by single spaces.
func (a kagomeAnalyzer) Index(text string) string {
	var c collector
	a.analyze(text, &c)
	return c.index()
}

// Terms returns the terms of text without repeats, in order of first
// appearance. KagomeSnowball leaves out of them Japanese interrogatives (何,
// どこ, 誰, いつ: isInterrogative), which stand for what the person does not
// know, so an episode that happens to hold the word is no better an answer,
// English stop words ("what", "did", "her": the Snowball list), and the
// terms that are no words (isFragment, blankContractions): ん and の, the
// pieces of English contractions (the m of I'm, the won of won't) and
// contractions without their apostrophe (dont, im). Index keeps them all,
// so stores built before need no rebuild. Kagome keeps them, as
// it always did: its stores' queries and the hash embedder's word features
// (omoide.DefaultEmbedder) do not change.
// cmd/bench eval on locomo-dev, the default preset, Recall@5 with the English
// stop words → without: single-hop 0.688 → 0.692, temporal 0.616 → 0.654,
// multi-hop 0.237 → 0.245 (BM25 alone, -arms bm25: single-hop 0.688 →
// 0.697); the Japanese suites do not move.
func (a kagomeAnalyzer) Terms(text string) []string {
	var c collector
	norm := normalize(text)
	if a.stem {
		norm = blankContractions(norm)
	}
	a.analyzeNormalized(norm, &c)
	return a.filterTerms(c.unique())
}

// filterTerms is Terms' filter of unique terms.
func (a kagomeAnalyzer) filterTerms(terms []string) []string {
	if a.stem {
		terms = slices.DeleteFunc(terms, func(t string) bool {
			return isInterrogative(t) || english.IsStopWord(t) || isFragment(t)
		})
	}
	return terms
}

// isInterrogative reports whether term is a Japanese interrogative as the
// Kagome analyzer yields it (a base form: 何, なに, どこ, 誰, いつ, どの, どんな,
// なぜ, いくつ, ...).
func isInterrogative(term string) bool {
	switch term {
	case "何", "なに", "なん", "何と", "何で", "何時", "何故", "なぜ",
		"誰", "だれ", "どなた", "どこ", "いつ",
		"どれ", "どちら", "どっち", "どの", "どんな", "どう", "どうして",
		"いくつ", "いくら":
		return true
	}
	return false
}

func (a kagomeAnalyzer) analyze(text string, c *collector) { a.analyzeNormalized(normalize(text), c) }

// analyzeNormalized is analyze of text already normalized.
func (a kagomeAnalyzer) analyzeNormalized(text string, c *collector) {
	if a.mora {
		text = prolong(text) // CJK2: へぇ is へー (mora.go)
	}
	scriptRuns(text, func(kind runKind, run string) {
		if kind != runCJK {
			if a.stem {
				run = stemEnglish(run)
			}
			c.add(run)
			return
		}
		// Text without Han or kana never loads the dictionary.
		load := loadKagome
		if a.kinship {
			load = kagomeKinship
		}
		tok, err := load()
		if err != nil {
			c.add(run)
			return
		}
		for run != "" {
			var chunk string
			chunk, run = cutRun(run)
			if !a.mora {
				for _, t := range tok.Analyze(chunk, a.mode) {
					a.addToken(t, c)
				}
				continue
			}
			// CJK2: kagome's words split inside a mora, rewritten (mora.go).
			for _, t := range moraTokens(tok, chunk, a.mode) {
				a.addToken(t, c)
			}
		}
	})
}

// addToken is the filter stage for one kagome token: its term, if any, to c.
func (a kagomeAnalyzer) addToken(t tokenizer.Token, c *collector) {
	if term, ok := kagomeTerm(t); ok {
		if std, ok := kinship[term]; ok && a.kinship && t.Class == tokenizer.USER {
			term = std
		}
		c.add(term)
	}
}

// maxKagomeRun bounds the characters kagome segments at once. Kagome's work
// grows with the square of the length of a run of one character class, since
// an unknown word of up to 1024 characters starts at every position (a run
// of 4096 ゎ takes seconds). At 128 the worst case stays within a few times
// ordinary text's cost a character, and ordinary Japanese, which has
// punctuation far more often, is never cut (docs/performance.md).
const maxKagomeRun = 128

// cutRun splits a CJK run into a head of at most maxKagomeRun characters and
// the rest. The cut goes at the last place in the second half of the head
// where hiragana meets kanji or katakana (a particle or inflection usually
// ends there and a content word begins), else at the last change between
// kanji, hiragana and katakana, else after maxKagomeRun characters; never
// before a combining mark.
func cutRun(run string) (head, rest string) {
	var (
		n           int  // characters seen
		prev        byte // class of the previous character
		best, other int  // byte offsets of the preferred and any script cut
	)
	for i, r := range run {
		if n == maxKagomeRun {
			switch {
			case best > 0:
				return run[:best], run[best:]
			case other > 0:
				return run[:other], run[other:]
			case !unicode.IsMark(r):
				return run[:i], run[i:]
			}
			// The hard cut would separate a mark from its base: keep going
			// to the first character that is not a mark.
			continue
		}
		n++
		if unicode.IsMark(r) {
			continue // a mark belongs to the character before it
		}
		cls := kanaClass(r)
		if n > maxKagomeRun/2 && prev != 0 && cls != prev {
			other = i
			if prev == 'h' {
				best = i
			}
		}
		prev = cls
	}
	return run, ""
}

// kanaClass classifies a CJK character for cutRun: 'h' hiragana, 'k' katakana
// (with ー), 'c' kanji (with 々).
func kanaClass(r rune) byte {
	switch {
	case unicode.Is(unicode.Hiragana, r):
		return 'h'
	case r == 'ー' || unicode.Is(unicode.Katakana, r):
		return 'k'
	}
	return 'c'
}

// kagomeTerm is the filter stage for one kagome token: the term it yields and
// whether it yields one.
func kagomeTerm(t tokenizer.Token) (string, bool) {
	switch t.Class {
	case tokenizer.DUMMY:
		return "", false // BOS and EOS
	case tokenizer.UNKNOWN:
		// The part of speech of an unknown word is a guess from its character
		// class (kagome calls 𠮷 a symbol), so it is kept regardless.
		return t.Surface, isContent(t.Surface)
	}
	if pos, _ := t.FeatureAt(0); droppedPOS(pos) {
		return "", false
	}
	term := t.Surface
	if base, ok := t.BaseForm(); ok && base != "" && base != "*" {
		term = base
	}
	return term, isContent(term)
}

// isContent reports whether term is more than whitespace, ー and 々.
func isContent(term string) bool {
	return strings.ContainsFunc(term, func(r rune) bool {
		return r != 'ー' && r != '々' && !pytext.IsSpace(r)
	})
}
