// Package tokenize turns text into the terms that SQLite FTS5 indexes and
// searches.
//
// FTS5's unicode61 tokenizer splits on spaces and punctuation only, so a
// Japanese clause is one token and `ラーメン` never matches `昨日ラーメンを食べた`.
// An Analyzer therefore rewrites text before it reaches FTS5: Index produces the
// space-separated terms stored in the FTS table, and Terms produces the terms of
// a query, which MatchQuery quotes into an FTS5 expression that no user text can
// turn into FTS5 syntax.
//
// Six analyzers exist: "cjk2" (the default of new stores: "cjk" with the
// mora repair, which mends the words kagome split inside a mora: mora.go),
// "cjk" (each text by its language, Japanese as "kagome+snowball", Chinese
// and Korean as character bigrams; the default of stores built before
// "cjk2"; each has a "+ja" form that reads Han-only text as Japanese),
// "kagome+snowball" (morphological segmentation with the IPA dictionary,
// base forms, English words stemmed; the default of stores built before
// "cjk"), "kagome" (the same without stemming, the default before that),
// "bigram" (overlapping character bigrams of
// CJK runs) and "raw" (the reference design's untouched text). ByName returns
// one by the name a store recorded; DefaultAnalyzer names the default. Kagome
// loads its dictionary (about 0.8 s, 90 MB) on first use, or when Warm is
// called.
//
// The kagome and bigram pipelines are plain, in the manner of bleve's
// analyzers: normalize (NFKC, lower case), segment (script runs, then kagome or
// bigrams for Han and kana), filter (drop function words and symbols). A store
// must index and query with the same analyzer: terms from one do not match an
// index built by another.
package tokenize

// Analyzer is a text-to-terms pipeline: normalize, segment, filter.
// Implementations are safe for concurrent use.
type Analyzer interface {
	// Name identifies the analyzer; a store records it at creation.
	Name() string
	// Index returns the text to store in an FTS5 unicode61 column for text.
	Index(text string) string
	// Terms returns the query terms of text in order of appearance.
	Terms(text string) []string
}

// Thesaurus is an Analyzer with synonyms for its query terms, spelled as its
// terms are: KagomeSnowball, whose synonyms are package synonym's table.
type Thesaurus interface {
	Analyzer
	// Synonyms returns the synonyms of a query term, without the term
	// itself; nil when it has none. The slice is shared: do not modify it.
	Synonyms(term string) []string
	// LoadSynonyms loads the synonyms now rather than on first use, and
	// reports an error if they cannot be read.
	LoadSynonyms() error
}
