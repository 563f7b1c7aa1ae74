package tokenize

import "github.com/omoide/omoide/internal/pytext"

// RawName is the Name of the Raw analyzer.
const RawName = "raw"

// rawAlias is another accepted spelling of RawName in ByName.
const rawAlias = "unicode61-raw"

// rawAnalyzer is the reference design: FTS5's unicode61 tokenizer sees the
// text unchanged.
type rawAnalyzer struct{}

// Raw returns the analyzer of the reference design. Index returns text
// unchanged, leaving all segmentation to FTS5's unicode61 tokenizer, and Terms
// splits text as Python's str.split() does, repeats and order kept. A Japanese
// clause is therefore one unicode61 token, and a query for one of its words
// does not match it; Raw exists to reproduce the reference behaviour.
func Raw() Analyzer { return rawAnalyzer{} }

// Name returns "raw".
func (rawAnalyzer) Name() string { return RawName }

// Index returns text unchanged.
func (rawAnalyzer) Index(text string) string { return text }

// Terms returns the whitespace-separated fields of text (Python
// " ".join(text.replace("\r", "").split()).split()), not deduplicated.
func (rawAnalyzer) Terms(text string) []string {
	return pytext.Fields(pytext.Compact(text))
}
