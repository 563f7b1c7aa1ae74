package hftokenizer

import "unicode/utf8"

// This file ports the parts of the Rust crate's NormalizedString that decide
// the token ids: the normalized text, plus per-byte alignments to the
// original text. Alignments look like bookkeeping only, but the Metaspace
// pre-tokenizer's prepend_scheme "first" asks whether a piece starts at
// original offset 0, so they are tracked exactly as the crate does.

// span is a byte range of the original text.
type span struct{ start, end int }

// change is one output character of a transformation and how it relates to
// the input: 0 replaces one input char, 1 inserts a new char, -n replaces one
// input char and removes the n following ones.
type change struct {
	r rune
	n int
}

// normString is a piece of text being normalized (the crate's NormalizedString).
type normString struct {
	orig  string // this piece of the original text
	norm  string // normalized text
	align []span // one entry per byte of norm, relative to orig
	shift int    // offset of orig within the whole original text
}

func newNormString(s string) *normString {
	n := &normString{orig: s, norm: s, align: make([]span, len(s))}
	for i := range s {
		_, w := utf8.DecodeRuneInString(s[i:])
		for j := 0; j < w; j++ {
			n.align[i+j] = span{i, i + w}
		}
	}
	return n
}

// origStart is the offset of this piece in the original text
// (offsets_original().0 in the crate).
func (n *normString) origStart() int { return n.shift }

func (n *normString) alignAt(i int) span {
	if i >= 0 && i < len(n.align) {
		return n.align[i]
	}
	return span{}
}

// transformRange replaces norm[start:end] with the chars of dest, computing
// their alignments from the changes; initialOffset input chars are removed
// first (the crate's transform_range).
func (n *normString) transformRange(start, end int, dest []change, initialOffset int) {
	replaced := n.norm[start:end]
	ri := 0
	nextReplaced := func() int {
		if ri >= len(replaced) {
			return 0
		}
		_, w := utf8.DecodeRuneInString(replaced[ri:])
		ri += w
		return w
	}
	offset := start
	for i := 0; i < initialOffset; i++ {
		offset += nextReplaced()
	}
	out := make([]byte, 0, end-start+8)
	align := make([]span, 0, end-start+8)
	for _, d := range dest {
		idx := offset
		var a span
		if d.n > 0 {
			if idx >= 1 {
				a = n.alignAt(idx - 1)
			}
		} else {
			a = n.alignAt(idx)
			offset += nextReplaced()
		}
		for k := 0; k < -d.n; k++ {
			offset += nextReplaced()
		}
		before := len(out)
		out = utf8.AppendRune(out, d.r)
		for k := len(out) - before; k > 0; k-- {
			align = append(align, a)
		}
	}
	newAlign := make([]span, 0, len(n.align)-(end-start)+len(align))
	newAlign = append(newAlign, n.align[:start]...)
	newAlign = append(newAlign, align...)
	newAlign = append(newAlign, n.align[end:]...)
	n.align = newAlign
	n.norm = n.norm[:start] + string(out) + n.norm[end:]
}

// transform applies dest to the whole string: the crate converts the full
// original range to a normalized range first, which skips leading
// zero-width alignments.
func (n *normString) transform(dest []change, initialOffset int) {
	if len(n.orig) == 0 {
		n.transformRange(0, 0, dest, initialOffset)
		return
	}
	start, end := -1, -1
	for i, a := range n.align {
		if a.end > len(n.orig) {
			break
		}
		if start < 0 && a.start != a.end {
			start = i
		}
		end = i + 1
	}
	switch {
	case start >= 0 && end >= 0:
		n.transformRange(start, end, dest, initialOffset)
	case end >= 0:
		n.transformRange(end, end, dest, initialOffset)
	}
}

// slice returns norm[start:end] as a new piece (the crate's slice with a
// normalized range). ok is false when the range is not on char boundaries.
func (n *normString) slice(start, end int) (*normString, bool) {
	if start < 0 || end > len(n.norm) || start > end ||
		!isBoundary(n.norm, start) || !isBoundary(n.norm, end) {
		return nil, false
	}
	os, oe := start, end // the crate maps an empty range to itself
	if start != end {
		os, oe = n.align[start].start, n.align[end-1].end
	}
	orig := ""
	if os >= 0 && os <= oe && oe <= len(n.orig) && isBoundary(n.orig, os) && isBoundary(n.orig, oe) {
		orig = n.orig[os:oe]
	}
	align := make([]span, end-start)
	for i, a := range n.align[start:end] {
		align[i] = span{a.start - os, a.end - os}
	}
	return &normString{orig: orig, norm: n.norm[start:end], align: align, shift: n.shift + os}, true
}

func isBoundary(s string, i int) bool {
	return i == 0 || i == len(s) || (i > 0 && i < len(s) && utf8.RuneStart(s[i]))
}

func (n *normString) runes() []rune { return []rune(n.norm) }

// mapRunes replaces each char by f(char).
func (n *normString) mapRunes(f func(rune) rune) {
	dest := make([]change, 0, len(n.norm))
	for _, r := range n.norm {
		dest = append(dest, change{f(r), 0})
	}
	n.transform(dest, 0)
}

// filter keeps the chars for which keep is true.
func (n *normString) filter(keep func(rune) bool) {
	removed, removedStart := 0, 0
	dest := make([]change, 0, len(n.norm))
	var last rune
	haveLast := false
	for _, r := range n.norm {
		if keep(r) {
			if haveLast {
				dest = append(dest, change{last, -removed})
			} else {
				removedStart = removed
			}
			last, haveLast = r, true
			removed = 0
		} else {
			removed++
		}
	}
	if haveLast {
		dest = append(dest, change{last, -removed})
	}
	n.transform(dest, removedStart)
}

// prepend inserts s before the first char (no-op on an empty string).
func (n *normString) prepend(s string) {
	first, w := utf8.DecodeRuneInString(n.norm)
	if w == 0 {
		return
	}
	dest := make([]change, 0, len(s)+1)
	i := 0
	for _, r := range s {
		c := 0
		if i != 0 {
			c = 1
		}
		dest = append(dest, change{r, c})
		i++
	}
	dest = append(dest, change{first, 1})
	n.transformRange(0, w, dest, 0)
}

// stripSpaces removes leading and/or trailing whitespace (Rust is_whitespace).
func (n *normString) stripSpaces(left, right bool) {
	rs := n.runes()
	lead, trail := 0, 0
	if left {
		for lead < len(rs) && isRustWhitespace(rs[lead]) {
			lead++
		}
	}
	if right {
		for trail < len(rs) && isRustWhitespace(rs[len(rs)-1-trail]) {
			trail++
		}
	}
	if lead == 0 && trail == 0 {
		return
	}
	dest := make([]change, 0, len(rs))
	for i, r := range rs {
		switch {
		case i < lead || i >= len(rs)-trail:
		case i == len(n.norm)-trail-1:
			// The crate compares a char index with a byte length here; the
			// quirk only moves an alignment, kept for exactness.
			dest = append(dest, change{r, -trail})
		default:
			dest = append(dest, change{r, 0})
		}
	}
	n.transform(dest, lead)
}

// match is a byte range of norm and whether it matched a pattern.
type match struct {
	start, end int
	hit        bool
}

// replace substitutes content for every hit; the new chars all take the
// alignment of the hit's last byte, as in the crate.
func (n *normString) replace(hits []match, content string) {
	var out []byte
	var align []span
	last := 0
	for _, m := range hits {
		if !m.hit {
			continue
		}
		out = append(out, n.norm[last:m.start]...)
		align = append(align, n.align[last:m.start]...)
		var a span
		if m.end >= 1 {
			a = n.align[m.end-1]
		}
		out = append(out, content...)
		for k := 0; k < len(content); k++ {
			align = append(align, a)
		}
		last = m.end
	}
	out = append(out, n.norm[last:]...)
	align = append(align, n.align[last:]...)
	n.norm = string(out)
	n.align = align
}

// Split behaviours of the crate's SplitDelimiterBehavior.
type splitBehavior int

const (
	splitRemoved splitBehavior = iota
	splitIsolated
	splitMergedWithPrevious
	splitMergedWithNext
	splitContiguous
)

// split cuts the string at the pattern matches according to behavior.
func (n *normString) split(matches []match, behavior splitBehavior) []*normString {
	type part struct {
		start, end int
		remove     bool
	}
	var parts []part
	switch behavior {
	case splitIsolated:
		for _, m := range matches {
			parts = append(parts, part{m.start, m.end, false})
		}
	case splitRemoved:
		for _, m := range matches {
			parts = append(parts, part{m.start, m.end, m.hit})
		}
	case splitContiguous:
		prev := false
		for _, m := range matches {
			if m.hit == prev && len(parts) > 0 {
				parts[len(parts)-1].end = m.end
			} else {
				parts = append(parts, part{m.start, m.end, false})
			}
			prev = m.hit
		}
	case splitMergedWithPrevious:
		prev := false
		for _, m := range matches {
			if m.hit && !prev && len(parts) > 0 {
				parts[len(parts)-1].end = m.end
			} else {
				parts = append(parts, part{m.start, m.end, false})
			}
			prev = m.hit
		}
	case splitMergedWithNext:
		prev := false
		for i := len(matches) - 1; i >= 0; i-- {
			m := matches[i]
			if m.hit && !prev && len(parts) > 0 {
				parts[len(parts)-1].start = m.start
			} else {
				parts = append(parts, part{m.start, m.end, false})
			}
			prev = m.hit
		}
		for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
			parts[i], parts[j] = parts[j], parts[i]
		}
	}
	out := make([]*normString, 0, len(parts))
	for _, p := range parts {
		if p.remove {
			continue
		}
		if s, ok := n.slice(p.start, p.end); ok {
			out = append(out, s)
		}
	}
	return out
}

// runeMatches lists the chars for which pred is true, with the gaps between
// them (the crate's Pattern for Fn(char) -> bool).
func runeMatches(s string, pred func(rune) bool) []match {
	if s == "" {
		return []match{{0, 0, false}}
	}
	var out []match
	last, seen := 0, 0
	for i, r := range s {
		w := runeWidth(s, i)
		seen = i + w
		if pred(r) {
			if last < i {
				out = append(out, match{last, i, false})
			}
			out = append(out, match{i, i + w, true})
			last = i + w
		}
	}
	if seen > last {
		out = append(out, match{last, seen, false})
	}
	return out
}

func runeWidth(s string, i int) int {
	_, w := utf8.DecodeRuneInString(s[i:])
	return w
}

// spanMatches turns sorted, non-overlapping hit ranges into the crate's
// (range, is_match) list covering the whole string.
func spanMatches(s string, hits [][2]int) []match {
	if s == "" {
		return []match{{0, 0, false}}
	}
	out := make([]match, 0, 2*len(hits)+1)
	prev := 0
	for _, h := range hits {
		if prev != h[0] {
			out = append(out, match{prev, h[0], false})
		}
		out = append(out, match{h[0], h[1], true})
		prev = h[1]
	}
	if prev != len(s) {
		out = append(out, match{prev, len(s), false})
	}
	return out
}
