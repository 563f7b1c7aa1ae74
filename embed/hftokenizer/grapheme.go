package hftokenizer

import (
	"unicode"
	"unicode/utf8"
)

// Extended grapheme clusters (UAX #29), which the Precompiled normalizer
// uses before falling back to single chars. Only clusters shorter than six
// bytes are looked up as a whole, so the rules that join longer sequences
// (Indic conjuncts, GB9c) cannot change the result and are left out.

type gcbClass uint8

const (
	gcbOther gcbClass = iota
	gcbCR
	gcbLF
	gcbControl
	gcbExtend
	gcbZWJ
	gcbRI
	gcbPrepend
	gcbSpacingMark
	gcbL
	gcbV
	gcbT
	gcbLV
	gcbLVT
)

var prependTable = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x0600, 0x0605, 1}, {0x06DD, 0x06DD, 1}, {0x070F, 0x070F, 1},
		{0x0890, 0x0891, 1}, {0x08E2, 0x08E2, 1}, {0x0D4E, 0x0D4E, 1},
	},
	R32: []unicode.Range32{
		{0x110BD, 0x110BD, 1}, {0x110CD, 0x110CD, 1}, {0x111C2, 0x111C3, 1},
		{0x1193F, 0x1193F, 1}, {0x11941, 0x11941, 1}, {0x11A3A, 0x11A3A, 1},
		{0x11A84, 0x11A89, 1}, {0x11D46, 0x11D46, 1}, {0x11F02, 0x11F02, 1},
		{0x113D1, 0x113D1, 1},
	},
}

// spacingMarkExceptions are Mc chars that UAX #29 does not treat as SpacingMark.
var spacingMarkExceptions = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x102B, 0x102C, 1}, {0x1038, 0x1038, 1}, {0x1062, 0x1064, 1},
		{0x1067, 0x106D, 1}, {0x1083, 0x1083, 1}, {0x1087, 0x108C, 1},
		{0x108F, 0x108F, 1}, {0x109A, 0x109C, 1}, {0x1A61, 0x1A61, 1},
		{0x1A63, 0x1A64, 1}, {0xAA7B, 0xAA7B, 1}, {0xAA7D, 0xAA7D, 1},
	},
	R32: []unicode.Range32{{0x11720, 0x11721, 1}},
}

// extPictTable is Extended_Pictographic (emoji-data.txt).
var extPictTable = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x00A9, 0x00A9, 1}, {0x00AE, 0x00AE, 1}, {0x203C, 0x203C, 1}, {0x2049, 0x2049, 1},
		{0x2122, 0x2122, 1}, {0x2139, 0x2139, 1}, {0x2194, 0x2199, 1}, {0x21A9, 0x21AA, 1},
		{0x231A, 0x231B, 1}, {0x2328, 0x2328, 1}, {0x2388, 0x2388, 1}, {0x23CF, 0x23CF, 1},
		{0x23E9, 0x23F3, 1}, {0x23F8, 0x23FA, 1}, {0x24C2, 0x24C2, 1}, {0x25AA, 0x25AB, 1},
		{0x25B6, 0x25B6, 1}, {0x25C0, 0x25C0, 1}, {0x25FB, 0x25FE, 1}, {0x2600, 0x2605, 1},
		{0x2607, 0x2612, 1}, {0x2614, 0x2685, 1}, {0x2690, 0x2705, 1}, {0x2708, 0x2712, 1},
		{0x2714, 0x2714, 1}, {0x2716, 0x2716, 1}, {0x271D, 0x271D, 1}, {0x2721, 0x2721, 1},
		{0x2728, 0x2728, 1}, {0x2733, 0x2734, 1}, {0x2744, 0x2744, 1}, {0x2747, 0x2747, 1},
		{0x274C, 0x274C, 1}, {0x274E, 0x274E, 1}, {0x2753, 0x2755, 1}, {0x2757, 0x2757, 1},
		{0x2763, 0x2767, 1}, {0x2795, 0x2797, 1}, {0x27A1, 0x27A1, 1}, {0x27B0, 0x27B0, 1},
		{0x27BF, 0x27BF, 1}, {0x2934, 0x2935, 1}, {0x2B05, 0x2B07, 1}, {0x2B1B, 0x2B1C, 1},
		{0x2B50, 0x2B50, 1}, {0x2B55, 0x2B55, 1}, {0x3030, 0x3030, 1}, {0x303D, 0x303D, 1},
		{0x3297, 0x3297, 1}, {0x3299, 0x3299, 1},
	},
	R32: []unicode.Range32{
		{0x1F000, 0x1F0FF, 1}, {0x1F10D, 0x1F10F, 1}, {0x1F12F, 0x1F12F, 1}, {0x1F16C, 0x1F171, 1},
		{0x1F17E, 0x1F17F, 1}, {0x1F18E, 0x1F18E, 1}, {0x1F191, 0x1F19A, 1}, {0x1F1AD, 0x1F1E5, 1},
		{0x1F201, 0x1F20F, 1}, {0x1F21A, 0x1F21A, 1}, {0x1F22F, 0x1F22F, 1}, {0x1F232, 0x1F23A, 1},
		{0x1F23C, 0x1F23F, 1}, {0x1F249, 0x1F3FA, 1}, {0x1F400, 0x1F53D, 1}, {0x1F546, 0x1F64F, 1},
		{0x1F680, 0x1F6FF, 1}, {0x1F774, 0x1F77F, 1}, {0x1F7D5, 0x1F7FF, 1}, {0x1F80C, 0x1F80F, 1},
		{0x1F848, 0x1F84F, 1}, {0x1F85A, 0x1F85F, 1}, {0x1F888, 0x1F88F, 1}, {0x1F8AE, 0x1F8FF, 1},
		{0x1F90C, 0x1F93A, 1}, {0x1F93C, 0x1F945, 1}, {0x1F947, 0x1FAFF, 1}, {0x1FC00, 0x1FFFD, 1},
	},
}

// unassignedIgnorable are the unassigned Default_Ignorable_Code_Point
// ranges, which UAX #29 counts as Control.
var unassignedIgnorable = &unicode.RangeTable{
	R16: []unicode.Range16{{0x2065, 0x2065, 1}, {0xFFF0, 0xFFF8, 1}},
	R32: []unicode.Range32{{0xE0000, 0xE0000, 1}, {0xE0002, 0xE001F, 1}, {0xE0080, 0xE00FF, 1}, {0xE01F0, 0xE0FFF, 1}},
}

func graphemeClass(r rune) gcbClass {
	switch {
	case r == '\r':
		return gcbCR
	case r == '\n':
		return gcbLF
	case r < 0x20 || (r >= 0x7F && r < 0xA0):
		return gcbControl
	case r < 0x300 && r != 0xAD:
		return gcbOther
	case r == 0x200D:
		return gcbZWJ
	case unicode.Is(compatExtend, r):
		return gcbExtend
	case unicode.Is(compatNotExtend, r):
		return gcbOther
	case r >= 0x1F1E6 && r <= 0x1F1FF:
		return gcbRI
	case r >= 0x1F3FB && r <= 0x1F3FF, unicode.In(r, unicode.Mn, unicode.Me, unicode.Other_Grapheme_Extend):
		return gcbExtend
	case unicode.Is(prependTable, r):
		return gcbPrepend
	case r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r) && r != 0x200C,
		unicode.Is(unassignedIgnorable, r):
		return gcbControl
	case r == 0x0E33 || r == 0x0EB3 || unicode.Is(unicode.Mc, r) && !unicode.Is(spacingMarkExceptions, r):
		return gcbSpacingMark
	case (r >= 0x1100 && r <= 0x115F) || (r >= 0xA960 && r <= 0xA97C):
		return gcbL
	case (r >= 0x1160 && r <= 0x11A7) || (r >= 0xD7B0 && r <= 0xD7C6):
		return gcbV
	case (r >= 0x11A8 && r <= 0x11FF) || (r >= 0xD7CB && r <= 0xD7FB):
		return gcbT
	case r >= hangulSBase && r < hangulSBase+hangulSCount:
		if (r-hangulSBase)%hangulTCount == 0 {
			return gcbLV
		}
		return gcbLVT
	}
	return gcbOther
}

// nextGrapheme returns the byte length of the grapheme cluster at the start of s.
func nextGrapheme(s string) int {
	r, w := utf8.DecodeRuneInString(s)
	if w == 0 {
		return 0
	}
	prev := graphemeClass(r)
	emoji := unicode.Is(extPictTable, r) // inside ExtPict Extend*
	emojiZWJ := false                    // just after ExtPict Extend* ZWJ
	riCount := 0
	if prev == gcbRI {
		riCount = 1
	}
	i := w
	for i < len(s) {
		r, w = utf8.DecodeRuneInString(s[i:])
		cur := graphemeClass(r)
		isPict := unicode.Is(extPictTable, r)
		if !joins(prev, cur, emojiZWJ && isPict, riCount) {
			break
		}
		switch {
		case cur == gcbZWJ:
			emojiZWJ = emoji
			emoji = false
		case cur == gcbExtend:
			emojiZWJ = false
		default:
			emoji = isPict
			emojiZWJ = false
		}
		if cur == gcbRI {
			riCount++
		} else {
			riCount = 0
		}
		prev = cur
		i += w
	}
	return i
}

// joins reports whether there is no break between prev and cur.
func joins(prev, cur gcbClass, emojiJoin bool, riCount int) bool {
	switch {
	case prev == gcbCR && cur == gcbLF: // GB3
		return true
	case prev == gcbCR || prev == gcbLF || prev == gcbControl: // GB4
		return false
	case cur == gcbCR || cur == gcbLF || cur == gcbControl: // GB5
		return false
	case prev == gcbL && (cur == gcbL || cur == gcbV || cur == gcbLV || cur == gcbLVT): // GB6
		return true
	case (prev == gcbLV || prev == gcbV) && (cur == gcbV || cur == gcbT): // GB7
		return true
	case (prev == gcbLVT || prev == gcbT) && cur == gcbT: // GB8
		return true
	case cur == gcbExtend || cur == gcbZWJ || cur == gcbSpacingMark: // GB9, GB9a
		return true
	case prev == gcbPrepend: // GB9b
		return true
	case prev == gcbZWJ && emojiJoin: // GB11
		return true
	case prev == gcbRI && cur == gcbRI: // GB12, GB13
		return riCount%2 == 1
	}
	return false
}
