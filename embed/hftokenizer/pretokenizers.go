package hftokenizer

import (
	"strings"
	"unicode/utf8"
)

// piece is one split of the text: normalized text headed for the model, or
// an added token already resolved to its id.
type piece struct {
	ns *normString
	id int // >= 0 for an added token
}

// splitPieces replaces every piece that is not an added token by the pieces
// f makes of it, dropping empty ones (the crate's PreTokenizedString.split).
func splitPieces(in []piece, f func(*normString) []piece) []piece {
	out := make([]piece, 0, len(in))
	for _, p := range in {
		if p.id >= 0 {
			out = append(out, p)
			continue
		}
		for _, q := range f(p.ns) {
			if q.ns.norm != "" {
				out = append(out, q)
			}
		}
	}
	return out
}

// plain wraps pieces headed for the model.
func plain(ns []*normString) []piece {
	out := make([]piece, len(ns))
	for i, n := range ns {
		out[i] = piece{ns: n, id: -1}
	}
	return out
}

// preTokenizer is one step of the tokenizer.json "pre_tokenizer".
type preTokenizer interface {
	preTokenize(in []piece) []piece
}

type sequencePreTokenizer []preTokenizer

func (s sequencePreTokenizer) preTokenize(in []piece) []piece {
	for _, step := range s {
		in = step.preTokenize(in)
	}
	return in
}

// runeSplitter splits at the chars matching pred with the given behaviour;
// WhitespaceSplit, Punctuation and Digits are all of this kind.
type runeSplitter struct {
	pred     func(rune) bool
	behavior splitBehavior
}

func (s runeSplitter) preTokenize(in []piece) []piece {
	return splitPieces(in, func(n *normString) []piece {
		return plain(n.split(runeMatches(n.norm, s.pred), s.behavior))
	})
}

type bertPreTokenizer struct{}

func (bertPreTokenizer) preTokenize(in []piece) []piece {
	in = runeSplitter{isRustWhitespace, splitRemoved}.preTokenize(in)
	return runeSplitter{isPunctuation, splitIsolated}.preTokenize(in)
}

// whitespacePreTokenizer keeps the runs matching \w+|[^\w\s]+ and drops the rest.
type whitespacePreTokenizer struct{}

func (whitespacePreTokenizer) preTokenize(in []piece) []piece {
	return splitPieces(in, func(n *normString) []piece {
		ms := spanMatches(n.norm, wordRuns(n.norm))
		for i := range ms {
			ms[i].hit = !ms[i].hit
		}
		return plain(n.split(ms, splitRemoved))
	})
}

// wordRuns finds the matches of the regex \w+|[^\w\s]+ (Unicode classes).
func wordRuns(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		var class func(rune) bool
		switch {
		case isWordChar(r):
			class = isWordChar
		case !isRustWhitespace(r):
			class = func(r rune) bool { return !isWordChar(r) && !isRustWhitespace(r) }
		default:
			i += w
			continue
		}
		j := i + w
		for j < len(s) {
			r2, w2 := utf8.DecodeRuneInString(s[j:])
			if !class(r2) {
				break
			}
			j += w2
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// Metaspace prepend schemes.
const (
	prependAlways = iota
	prependFirst
	prependNever
)

type metaspacePreTokenizer struct {
	replacement rune
	prepend     int
	split       bool
}

func (m metaspacePreTokenizer) preTokenize(in []piece) []piece {
	rep := string(m.replacement)
	return splitPieces(in, func(n *normString) []piece {
		n.replace(runeMatches(n.norm, func(r rune) bool { return r == ' ' }), rep)
		switch m.prepend {
		case prependAlways:
			if !strings.HasPrefix(n.norm, rep) {
				n.prepend(rep)
			}
		case prependFirst:
			// "first" means the piece that starts the original text, which
			// is decided from the alignments (a stripped or split-off start
			// does not count).
			if !strings.HasPrefix(n.norm, rep) && n.origStart() == 0 {
				n.prepend(rep)
			}
		}
		if !m.split {
			return []piece{{ns: n, id: -1}}
		}
		return plain(n.split(runeMatches(n.norm, func(r rune) bool { return r == m.replacement }), splitMergedWithNext))
	})
}
