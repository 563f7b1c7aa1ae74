package tokenize

import (
	"fmt"
	"strings"
)

// DefaultAnalyzer is the Name of the analyzer a new store uses unless told
// otherwise.
const DefaultAnalyzer = KagomeName

// analyzerNames lists the names ByName accepts, for its error message.
var analyzerNames = []string{KagomeName, BigramName, RawName, rawAlias}

// ByName returns the analyzer called name: "kagome", "bigram" or "raw"
// ("unicode61-raw" is accepted for "raw"). Names are exact: no case folding or
// trimming.
func ByName(name string) (Analyzer, error) {
	switch name {
	case KagomeName:
		return Kagome(), nil
	case BigramName:
		return Bigram(), nil
	case RawName, rawAlias:
		return Raw(), nil
	}
	return nil, fmt.Errorf("tokenize: unknown analyzer %q (valid: %s)",
		name, strings.Join(analyzerNames, ", "))
}
