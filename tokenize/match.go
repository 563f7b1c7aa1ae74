package tokenize

import (
	"strings"
	"unicode/utf8"

	"github.com/omoide/omoide/internal/pytext"
)

// MatchQuery returns an FTS5 MATCH expression that matches a row containing any
// of terms: each term becomes an FTS5 string (double-quoted, embedded double
// quotes doubled), and the strings are joined with " OR ". Before quoting, C0
// control characters (NUL included) and DEL are removed, as are bytes that are
// not valid UTF-8; a term that is then empty or only whitespace is skipped.
//
// A quoted string is never FTS5 syntax (NEAR, AND, *, ^, column filters), so no
// input can make the expression fail to parse. FTS5 runs the string through the
// table's tokenizer, so a term of several unicode61 tokens is a phrase. When no
// term survives MatchQuery returns "", and the caller must skip the MATCH (and
// BM25): FTS5 rejects an empty expression.
func MatchQuery(terms []string) string { return strings.Join(MatchPhrases(terms), " OR ") }

// MatchPhrases returns the FTS5 strings MatchQuery joins, in the order of
// terms: one for each term with content.
func MatchPhrases(terms []string) []string {
	var out []string
	var b strings.Builder
	for _, term := range terms {
		if !hasContent(term) {
			continue
		}
		b.Reset()
		b.WriteByte('"')
		for i := 0; i < len(term); {
			r, size := utf8.DecodeRuneInString(term[i:])
			i += size
			switch {
			case dropped(r, size):
			case r == '"':
				b.WriteString(`""`)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
		out = append(out, b.String())
	}
	return out
}

// dropped reports whether MatchQuery removes the rune r, decoded from size
// bytes: invalid UTF-8 (a well-formed U+FFFD is kept), C0 controls and DEL.
func dropped(r rune, size int) bool {
	return (r == utf8.RuneError && size <= 1) || r < 0x20 || r == 0x7f
}

// hasContent reports whether term keeps anything but whitespace once MatchQuery
// has removed what it drops.
func hasContent(term string) bool {
	for i := 0; i < len(term); {
		r, size := utf8.DecodeRuneInString(term[i:])
		i += size
		if !dropped(r, size) && !pytext.IsSpace(r) {
			return true
		}
	}
	return false
}
