package tokenize

import (
	"fmt"

	"github.com/omoide/omoide/lang"
)

// DefaultAnalyzer is the Name of the analyzer a new store uses unless told
// otherwise.
const DefaultAnalyzer = CJK2Name

// ByName returns the analyzer called name: "cjk2", "cjk2+ja", "cjk", "cjk+ja", "kagome+snowball",
// "kagome", "bigram" or "raw" ("unicode61-raw" is accepted for "raw"). Names are exact: no case folding or
// trimming.
func ByName(name string) (Analyzer, error) {
	switch name {
	case CJKName:
		return CJK(), nil
	case CJKJapaneseName:
		return CJKFor(lang.Japanese), nil
	case CJK2Name:
		return CJK2(), nil
	case CJK2JapaneseName:
		return CJK2For(lang.Japanese), nil
	case KagomeSnowballName:
		return KagomeSnowball(), nil
	case KagomeName:
		return Kagome(), nil
	case BigramName:
		return Bigram(), nil
	case RawName, rawAlias:
		return Raw(), nil
	}
	return nil, fmt.Errorf("tokenize: unknown analyzer %q (valid: %s, %s, %s, %s, %s, %s, %s, %s, %s)",
		name, CJK2Name, CJK2JapaneseName, CJKName, CJKJapaneseName, KagomeSnowballName, KagomeName, BigramName, RawName, rawAlias)
}
