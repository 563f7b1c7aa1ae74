package tokenize

// BigramName is the Name of the Bigram analyzer.
const BigramName = "bigram"

// bigramAnalyzer indexes CJK runs as overlapping character bigrams.
type bigramAnalyzer struct{}

// Bigram returns the dictionary-free analyzer. Its pipeline:
//
//   - normalize: NFKC, then lower-case;
//   - segment: split into script runs (see scriptRuns); a CJK run (Han,
//     Hiragana, Katakana, ー, 々) becomes its overlapping character bigrams
//     (東京タワー: 東京 京タ タワ ワー; a one-character run is that character),
//     and any other run of letters and digits is one word. Hangul is written
//     with spaces between words, so it is treated as words, not bigrams.
//   - filter: nothing is dropped.
//
// Bigram finds every substring of two or more CJK characters at the price of
// many spurious bigrams (京タ) and a larger index.
func Bigram() Analyzer { return bigramAnalyzer{} }

// Name returns "bigram".
func (bigramAnalyzer) Name() string { return BigramName }

// Index returns all terms of text, repeats included, joined by single spaces.
func (bigramAnalyzer) Index(text string) string {
	var c collector
	bigrams(text, &c)
	return c.index()
}

// Terms returns the terms of text without repeats, in order of first
// appearance.
func (bigramAnalyzer) Terms(text string) []string {
	var c collector
	bigrams(text, &c)
	return c.unique()
}

func bigrams(text string, c *collector) {
	scriptRuns(normalize(text), func(kind runKind, run string) {
		if kind != runCJK {
			c.add(run)
			return
		}
		addBigrams(run, c)
	})
}
