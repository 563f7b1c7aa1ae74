package tokenize

import "fmt"

// DefaultAnalyzer is the Name of the analyzer a new store uses unless told
// otherwise.
const DefaultAnalyzer = KagomeSnowballName

// ByName returns the analyzer called name: "kagome+snowball", "kagome",
// "bigram" or "raw" ("unicode61-raw" is accepted for "raw"). Names are exact: no case folding or
// trimming.
func ByName(name string) (Analyzer, error) {
	switch name {
	case KagomeSnowballName:
		return KagomeSnowball(), nil
	case KagomeName:
		return Kagome(), nil
	case BigramName:
		return Bigram(), nil
	case RawName, rawAlias:
		return Raw(), nil
	}
	return nil, fmt.Errorf("tokenize: unknown analyzer %q (valid: %s, %s, %s, %s, %s)",
		name, KagomeSnowballName, KagomeName, BigramName, RawName, rawAlias)
}
