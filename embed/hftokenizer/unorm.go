package hftokenizer

import (
	"sort"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Unicode normalization with the per-char changes the crate's
// unicode-normalization-alignments produces: decompose each char, sort runs
// of combining marks by class, then recompose with the streaming algorithm.
// The character data come from golang.org/x/text; compatNoNorm removes what
// the crate's Unicode 9 tables do not have.

const (
	hangulSBase  = 0xAC00
	hangulLBase  = 0x1100
	hangulVBase  = 0x1161
	hangulTBase  = 0x11A7
	hangulLCount = 19
	hangulVCount = 21
	hangulTCount = 28
	hangulNCount = hangulVCount * hangulTCount
	hangulSCount = hangulLCount * hangulNCount
)

// decompEntry is one decomposed char with its combining class and change.
type decompEntry struct {
	ccc uint8
	r   rune
	n   int
}

func runeProps(f norm.Form, r rune) norm.Properties {
	var buf [utf8.UTFMax]byte
	k := utf8.EncodeRune(buf[:], r)
	return f.Properties(buf[:k])
}

func combiningClass(r rune) uint8 {
	if r < 0x300 || unicode.Is(compatNoNorm, r) {
		return 0
	}
	return runeProps(norm.NFD, r).CCC()
}

// decomposeRune appends the full canonical (or compatibility) decomposition of r.
func decomposeRune(dst []rune, r rune, compat bool) []rune {
	if r < 0xA0 {
		return append(dst, r)
	}
	if s := r - hangulSBase; s >= 0 && s < hangulSCount {
		dst = append(dst, hangulLBase+s/hangulNCount, hangulVBase+(s%hangulNCount)/hangulTCount)
		if t := s % hangulTCount; t != 0 {
			dst = append(dst, hangulTBase+t)
		}
		return dst
	}
	if unicode.Is(compatNoNorm, r) {
		return append(dst, r)
	}
	f := norm.NFD
	if compat {
		f = norm.NFKD
	}
	d := runeProps(f, r).Decomposition()
	if d == nil {
		return append(dst, r)
	}
	for len(d) > 0 {
		c, w := utf8.DecodeRune(d)
		dst = append(dst, c)
		d = d[w:]
	}
	return dst
}

// composePair is the primary composite of a and b, if any.
func composePair(a, b rune) (rune, bool) {
	if l := a - hangulLBase; l >= 0 && l < hangulLCount {
		if v := b - hangulVBase; v >= 0 && v < hangulVCount {
			return hangulSBase + (l*hangulVCount+v)*hangulTCount, true
		}
		return 0, false
	}
	if s := a - hangulSBase; s >= 0 && s < hangulSCount && s%hangulTCount == 0 {
		if t := b - hangulTBase; t > 0 && t < hangulTCount {
			return a + t, true
		}
		return 0, false
	}
	if b < 0x300 || runeProps(norm.NFC, b).BoundaryBefore() {
		return 0, false
	}
	s := norm.NFC.String(string(a) + string(b))
	r, w := utf8.DecodeRuneInString(s)
	if w == len(s) && w > 0 && r != utf8.RuneError && !unicode.Is(compatNoNorm, r) {
		return r, true
	}
	return 0, false
}

// decompose returns the canonically ordered (compatibility) decomposition of
// s; the first char of each input char has change 0, the others 1.
func decompose(s string, compat bool) []decompEntry {
	out := make([]decompEntry, 0, len(s))
	var buf []rune
	runStart := 0 // start of the current run of combining marks
	for _, r := range s {
		buf = decomposeRune(buf[:0], r, compat)
		for i, d := range buf {
			c := combiningClass(d)
			if c == 0 {
				stableSortByCCC(out[runStart:])
				runStart = len(out)
			}
			n := 1
			if i == 0 {
				n = 0
			}
			out = append(out, decompEntry{c, d, n})
		}
	}
	stableSortByCCC(out[runStart:])
	return out
}

// recompose is the crate's Recompositions iterator run to completion.
func recompose(in []decompEntry) []change {
	out := make([]change, 0, len(in))
	var pending []change // marks blocked from the composee
	var composee change
	haveComposee := false
	lastCCC := -1
	for _, e := range in {
		chClass := int(e.ccc)
		if !haveComposee {
			if chClass != 0 {
				out = append(out, change{e.r, e.n})
				continue
			}
			composee, haveComposee = change{e.r, e.n}, true
			continue
		}
		k := composee
		if lastCCC < 0 {
			if r, ok := composePair(k.r, e.r); ok {
				composee = change{r, k.n + e.n - 1}
				continue
			}
			if chClass == 0 {
				composee = change{e.r, e.n}
				out = append(out, k)
				continue
			}
			pending = append(pending, change{e.r, e.n})
			lastCCC = chClass
			continue
		}
		if lastCCC >= chClass {
			if chClass == 0 {
				composee = change{e.r, e.n}
				lastCCC = -1
				out = append(out, k)
				out = append(out, pending...)
				pending = pending[:0]
				continue
			}
			pending = append(pending, change{e.r, e.n})
			lastCCC = chClass
			continue
		}
		if r, ok := composePair(k.r, e.r); ok {
			composee = change{r, k.n + e.n - 1}
			continue
		}
		pending = append(pending, change{e.r, e.n})
		lastCCC = chClass
	}
	if haveComposee {
		out = append(out, composee)
	}
	return append(out, pending...)
}

// unicodeNormalize applies NFD, NFKD, NFC or NFKC to n.
func (n *normString) unicodeNormalize(compose, compat bool) {
	d := decompose(n.norm, compat)
	var dest []change
	if compose {
		dest = recompose(d)
	} else {
		dest = make([]change, len(d))
		for i, e := range d {
			dest[i] = change{e.r, e.n}
		}
	}
	n.transform(dest, 0)
}

// stableSortByCCC sorts entries by canonical combining class, keeping the
// text order within a class.
func stableSortByCCC(e []decompEntry) {
	sort.SliceStable(e, func(i, j int) bool { return e[i].ccc < e[j].ccc })
}
