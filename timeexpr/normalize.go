package timeexpr

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalize returns text in Unicode NFKC, lower-cased: the form Parse
// matches, of which Window.Expr is a substring. ３日前 becomes 3日前, ＬＡＳＴ
// becomes last, half-width ｹﾞﾝｷ becomes ゲンキ.
//
// Text made of ASCII, full-width ASCII, the ideographic space, hiragana,
// katakana, CJK unified ideographs, common CJK punctuation and emoji (nearly
// every chat message in Japanese, Chinese or English) takes a fast path with
// at most one allocation; anything else goes through golang.org/x/text/unicode/norm.
// Normalize returns text itself when nothing changes.
func Normalize(text string) string {
	changed := false
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			changed = changed || 'A' <= c && c <= 'Z'
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case nfkcStable(r):
		case r == '\u3000' || '！' <= r && r <= '～':
			changed = true
		default:
			return strings.ToLower(norm.NFKC.String(text))
		}
		i += size
	}
	if !changed {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		switch {
		case r == '\u3000':
			r = ' '
		case '！' <= r && r <= '～': // U+FF01-FF5E: NFKC maps them to U+0021-007E
			r -= '！' - '!'
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// nfkcStable reports whether r is left alone by NFKC and never composes with
// a neighbour: hiragana, katakana, ー, CJK unified ideographs, common CJK
// punctuation (、。々〇「」『』【】〜・) and emoji (pictographs, emoticons,
// transport and supplemental symbols, the zero width joiner and the emoji
// variation selector).
func nfkcStable(r rune) bool {
	switch {
	case 'ぁ' <= r && r <= 'ゖ', 'ァ' <= r && r <= 'ヺ', r == 'ー':
		return true
	case '一' <= r && r <= '\u9fff':
		return true
	case '、' <= r && r <= '。', r == '々', r == '〇', '「' <= r && r <= '』', '【' <= r && r <= '】',
		r == '〜', r == '・':
		return true
	case 0x1f300 <= r && r <= 0x1f64f, 0x1f680 <= r && r <= 0x1f6ff, 0x1f900 <= r && r <= 0x1f9ff,
		0x1fa70 <= r && r <= 0x1faff, r == '\u200d', r == '\ufe0f': // emoji, ZWJ, VS16
		return true
	}
	return false
}
