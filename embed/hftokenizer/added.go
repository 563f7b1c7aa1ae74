package hftokenizer

import (
	"fmt"
	"sort"
	"unicode/utf8"
)

// addedToken is an entry of tokenizer.json "added_tokens". The crate splits
// these out of the text before the model sees it, even when special tokens
// are not added, so "[SEP]" in a message becomes the [SEP] id.
type addedToken struct {
	content                                         string
	singleWord, lstrip, rstrip, normalized, special bool
}

// tokenMatcher finds added tokens leftmost-longest, non-overlapping (the
// crate uses a daachorse automaton with MatchKind::LeftmostLongest).
type tokenMatcher struct {
	byFirst [256][]int // pattern indices by first byte, longest first
	pats    []string
	ids     []int
}

func newTokenMatcher(pats []string, ids []int) (*tokenMatcher, error) {
	if len(pats) == 0 {
		return nil, nil
	}
	m := &tokenMatcher{pats: pats, ids: ids}
	seen := make(map[string]bool, len(pats))
	for i, p := range pats {
		if p == "" {
			return nil, fmt.Errorf("added token %d is empty after normalization, which is not supported", ids[i])
		}
		if seen[p] {
			// The crate keeps both and which one wins depends on hash order.
			return nil, fmt.Errorf("two added tokens match the same text %q, which is not supported", p)
		}
		seen[p] = true
		m.byFirst[p[0]] = append(m.byFirst[p[0]], i)
	}
	for b := range m.byFirst {
		g := m.byFirst[b]
		sort.Slice(g, func(i, j int) bool { return len(pats[g[i]]) > len(pats[g[j]]) })
	}
	return m, nil
}

// next returns the leftmost-longest match at or after from, or ok=false.
func (m *tokenMatcher) next(s string, from int) (start, end, id int, ok bool) {
	for i := from; i < len(s); i++ {
		for _, k := range m.byFirst[s[i]] {
			p := m.pats[k]
			if len(s)-i >= len(p) && s[i:i+len(p)] == p {
				return i, i + len(p), m.ids[k], true
			}
		}
	}
	return 0, 0, 0, false
}

// addedVocab holds the added tokens and their two matchers: one over the raw
// text (normalized=false tokens), one over normalized text.
type addedVocab struct {
	tokens map[int]addedToken
	raw    *tokenMatcher
	norm   *tokenMatcher
}

// split cuts n at the added tokens m finds (the crate's find_matches and
// split_with_indices).
func (v *addedVocab) split(n *normString, m *tokenMatcher) []piece {
	s := n.norm
	type cut struct{ start, end, id int }
	var cuts []cut
	switch {
	case s == "":
		cuts = []cut{{0, 0, -1}}
	case m == nil:
		cuts = []cut{{0, len(s), -1}}
	default:
		startOffset := 0
		for from := 0; ; {
			start, stop, id, ok := m.next(s, from)
			if !ok {
				break
			}
			from = stop
			tok := v.tokens[id]
			if tok.singleWord {
				startSpace := start == 0 || !endsWithWord(s[:start])
				stopSpace := stop == len(s) || !startsWithWord(s[stop:])
				if !startSpace || !stopSpace {
					continue
				}
			}
			if tok.lstrip {
				start = max(trailingSpaceStart(s[:start]), startOffset)
			}
			if tok.rstrip {
				stop += leadingSpaceEnd(s[stop:])
			}
			if startOffset < start {
				cuts = append(cuts, cut{startOffset, start, -1})
			}
			cuts = append(cuts, cut{start, stop, id})
			startOffset = stop
		}
		if startOffset != len(s) {
			cuts = append(cuts, cut{startOffset, len(s), -1})
		}
	}
	out := make([]piece, 0, len(cuts))
	for _, c := range cuts {
		if sub, ok := n.slice(c.start, c.end); ok {
			out = append(out, piece{ns: sub, id: c.id})
		}
	}
	return out
}

func endsWithWord(s string) bool {
	r, w := utf8.DecodeLastRuneInString(s)
	return w > 0 && isWordChar(r)
}

func startsWithWord(s string) bool {
	r, w := utf8.DecodeRuneInString(s)
	return w > 0 && isWordChar(r)
}

// trailingSpaceStart is where the whitespace at the end of s begins.
func trailingSpaceStart(s string) int {
	i := len(s)
	for i > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:i])
		if !isRustWhitespace(r) {
			break
		}
		i -= w
	}
	return i
}

// leadingSpaceEnd is where the whitespace at the start of s ends.
func leadingSpaceEnd(s string) int {
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isRustWhitespace(r) {
			break
		}
		i += w
	}
	return i
}
