package hftokenizer

import (
	"regexp"
	"strings"
)

// normalizer is one step of the tokenizer.json "normalizer".
type normalizer interface {
	normalize(n *normString)
}

type sequenceNormalizer []normalizer

func (s sequenceNormalizer) normalize(n *normString) {
	for _, step := range s {
		step.normalize(n)
	}
}

// unicodeNormalizer is NFD, NFKD, NFC or NFKC.
type unicodeNormalizer struct{ compose, compat bool }

func (u unicodeNormalizer) normalize(n *normString) { n.unicodeNormalize(u.compose, u.compat) }

type lowercaseNormalizer struct{}

func (lowercaseNormalizer) normalize(n *normString) {
	dest := make([]change, 0, len(n.norm))
	for _, r := range n.norm {
		dest = lowerRunes(dest, r)
	}
	n.transform(dest, 0)
}

type stripNormalizer struct{ left, right bool }

func (s stripNormalizer) normalize(n *normString) { n.stripSpaces(s.left, s.right) }

// stripAccentsNormalizer removes combining marks (categories Mn, Mc, Me).
type stripAccentsNormalizer struct{}

func (stripAccentsNormalizer) normalize(n *normString) {
	n.filter(func(r rune) bool { return !isCombiningMark(r) })
}

type prependNormalizer struct{ prefix string }

func (p prependNormalizer) normalize(n *normString) {
	if n.norm != "" {
		n.prepend(p.prefix)
	}
}

// nmtNormalizer drops ASCII controls and maps other whitespace-like chars to
// a space, as the crate's Nmt normalizer.
type nmtNormalizer struct{}

func (nmtNormalizer) normalize(n *normString) {
	n.filter(func(r rune) bool {
		return !((r >= 0x1 && r <= 0x8) || r == 0xB || (r >= 0xE && r <= 0x1F) || r == 0x7F || r == 0x8F || r == 0x9F)
	})
	n.mapRunes(func(r rune) rune {
		switch {
		case r == 0x9 || r == 0xA || r == 0xC || r == 0xD || r == 0x1680 ||
			(r >= 0x200B && r <= 0x200F) || r == 0x2028 || r == 0x2029 ||
			r == 0x2581 || r == 0xFEFF || r == 0xFFFD:
			return ' '
		}
		return r
	})
}

// pattern finds the non-overlapping, leftmost matches of a Replace or Split
// pattern as [start, end) byte ranges.
type pattern interface {
	find(s string) [][2]int
}

type stringPattern string

func (p stringPattern) find(s string) [][2]int {
	var out [][2]int
	for off := 0; ; {
		i := strings.Index(s[off:], string(p))
		if i < 0 {
			return out
		}
		out = append(out, [2]int{off + i, off + i + len(p)})
		off += i + len(p)
	}
}

type regexPattern struct{ re *regexp.Regexp }

func (p regexPattern) find(s string) [][2]int {
	idx := p.re.FindAllStringIndex(s, -1)
	out := make([][2]int, len(idx))
	for i, m := range idx {
		out[i] = [2]int{m[0], m[1]}
	}
	return out
}

type replaceNormalizer struct {
	pat     pattern
	content string
}

func (r replaceNormalizer) normalize(n *normString) {
	n.replace(spanMatches(n.norm, r.pat.find(n.norm)), r.content)
}

type bertNormalizer struct {
	cleanText, chineseChars, stripAccents, lowercase bool
}

func (b bertNormalizer) normalize(n *normString) {
	if b.cleanText {
		n.filter(func(r rune) bool { return !isBertRemoved(r) })
		n.mapRunes(func(r rune) rune {
			if isBertWhitespace(r) {
				return ' '
			}
			return r
		})
	}
	if b.chineseChars {
		dest := make([]change, 0, len(n.norm))
		for _, r := range n.norm {
			if isChineseChar(r) {
				dest = append(dest, change{' ', 0}, change{r, 1}, change{' ', 1})
			} else {
				dest = append(dest, change{r, 0})
			}
		}
		n.transform(dest, 0)
	}
	if b.stripAccents {
		n.unicodeNormalize(false, false)
		n.filter(func(r rune) bool { return !isNonspacingMark(r) })
	}
	if b.lowercase {
		lowercaseNormalizer{}.normalize(n)
	}
}

type precompiledNormalizer struct{ p *precompiled }

func (p precompiledNormalizer) normalize(n *normString) { p.p.normalize(n) }
