package hftokenizer

import "unicode"

// Character classes as the Rust crate computes them: Go's Unicode tables,
// corrected by the compat* tables of compat_tables.go where the crate's
// (older or newer) Unicode data say otherwise.

// newRangeTable builds a table from sorted, non-overlapping [lo, hi] pairs.
func newRangeTable(pairs [][2]rune) *unicode.RangeTable {
	t := &unicode.RangeTable{}
	for _, p := range pairs {
		if p[1] <= 0xFFFF {
			t.R16 = append(t.R16, unicode.Range16{Lo: uint16(p[0]), Hi: uint16(p[1]), Stride: 1})
			if p[1] <= unicode.MaxLatin1 {
				t.LatinOffset++
			}
			continue
		}
		lo := p[0]
		if lo <= 0xFFFF {
			t.R16 = append(t.R16, unicode.Range16{Lo: uint16(lo), Hi: 0xFFFF, Stride: 1})
			lo = 0x10000
		}
		t.R32 = append(t.R32, unicode.Range32{Lo: uint32(lo), Hi: uint32(p[1]), Stride: 1})
	}
	return t
}

// isRustWhitespace is Rust's char::is_whitespace (the White_Space property).
func isRustWhitespace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || (r >= '\t' && r <= '\r')
	}
	return unicode.Is(unicode.White_Space, r) != unicode.Is(compatSpaceFlip, r)
}

// isWordChar is \w of the Rust regex crate: Alphabetic, marks, decimal
// digits, connector punctuation and join controls.
func isWordChar(r rune) bool {
	if r < 0x80 {
		return r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
	}
	word := unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r) ||
		unicode.IsMark(r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r) ||
		unicode.Is(unicode.Join_Control, r)
	return word != unicode.Is(compatWordFlip, r)
}

// isPunctuation is the crate's punctuation test: ASCII punctuation (which
// includes symbols such as $ + < = > ^ ` | ~) or a Unicode P* category.
func isPunctuation(r rune) bool {
	if r < 0x80 {
		return (r >= '!' && r <= '/') || (r >= ':' && r <= '@') || (r >= '[' && r <= '`') || (r >= '{' && r <= '~')
	}
	return unicode.IsPunct(r) != unicode.Is(compatPunctFlip, r)
}

// isNumeric is Rust's char::is_numeric (categories Nd, Nl, No).
func isNumeric(r rune) bool {
	if r < 0x80 {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r) != unicode.Is(compatNumFlip, r)
}

// isBertWhitespace counts \t, \n and \r as whitespace like BertNormalizer.
func isBertWhitespace(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || isRustWhitespace(r)
}

// isBertRemoved is what BertNormalizer's clean_text drops: NUL, U+FFFD and
// control chars (categories Cc, Cf and Co except \t, \n and \r).
func isBertRemoved(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	removed := r == 0 || r == 0xFFFD || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co)
	return removed != unicode.Is(compatCleanFlip, r)
}

// isNonspacingMark is category Mn, which BertNormalizer's strip_accents drops.
func isNonspacingMark(r rune) bool {
	return r >= 0x300 && unicode.Is(unicode.Mn, r) != unicode.Is(compatMnFlip, r)
}

// isCombiningMark is category M, which the StripAccents normalizer drops.
func isCombiningMark(r rune) bool {
	return r >= 0x300 && unicode.IsMark(r) != unicode.Is(compatMarkFlip, r)
}

// isChineseChar is BertNormalizer's CJK ideograph ranges.
func isChineseChar(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// lowerRunes appends Rust's char::to_lowercase of r to dst with the crate's
// changes: U+0130 is the one char whose lowercase is two chars.
func lowerRunes(dst []change, r rune) []change {
	if r == 0x130 {
		return append(dst, change{'i', 0}, change{0x307, 1})
	}
	if s, ok := compatLower[r]; ok {
		for i, c := range []rune(s) {
			dst = append(dst, change{c, min(i, 1)})
		}
		return dst
	}
	if r < 0x80 {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, change{r, 0})
	}
	return append(dst, change{unicode.ToLower(r), 0})
}
