package tokenize

import (
	"strings"
	"unicode/utf8"

	"github.com/ikawaha/kagome/v2/tokenizer"
	"github.com/omoide/omoide/lang"
)

// The mora repair is the segment step that CJK2 adds after kagome: it
// mends the words kagome split inside a mora, a syllable of kana that no
// word boundary can cut.
//
// Kagome's IPA dictionary has no entry for most colloquial and onomatopoeic
// words written in hiragana (にゃんこ, きゅんと, ぴゅー), and its unknown-word
// rule cannot place them: it starts an unknown hiragana word only where no
// dictionary word starts (never at に, a particle), and runs it to the end of
// the hiragana run (or one character short of it). So にゃんこがかわいい became
// に + ゃんこがかわいい, ぴゅー ぴゅ + ー, きゃりー the verb きゃ (く) + り + ー.
// Three boundaries are certainly wrong (brokenWord):
//
//   - before a small kana (ぁぃぅぇぉゃゅょゎ, in either script), or before
//     an unknown word that starts with っ: the kana before it heads the same
//     mora (に + ゃんこ: にゃんこ), and the word starts there, even inside a
//     longer token (のに + ゃんこ);
//   - before ー after a word kagome does not know, or after a mora with a
//     small kana that no verb or auxiliary precedes (ぴゅ + ー: ぴゅー; にゃ +
//     ー: にゃー). After an inflected word ー stays a stray mark, dropped as
//     before (かわいー: かわいい; わかったー: わかる);
//   - after a contracted conditional of one mora (仮定縮約: きゃ, しゃ, which
//     only follow a verb: 行かなきゃ) that follows no verb or auxiliary: it
//     is the first mora of an unknown word, which takes the auxiliaries and
//     ー after it (きゃ + り + ー: きゃりー; しゃ + つ: しゃつ).
//
// When the part after the broken boundary was kagome's unknown word, which
// ran to the end of the hiragana run, the word ends before the first
// particle in it (がをにはとのもで, unless it heads a mora: にゃ), so
// にゃんこがかわいい holds にゃんこ. Prolonged sound marks after the word belong
// to it, and so does a ん after them (びょーん). The repair writes the word in
// katakana and lets kagome segment the chunk again (moraTokens).

// moraTokens segments chunk with tok in mode and, while kagome split words
// inside a mora, writes those words in katakana and segments again: kagome
// bounds an unknown katakana word by its script, and knows many words in
// katakana that people write in hiragana (しゃつ: シャツ). A word so
// rewritten yields its katakana as its term, as the same word written in
// katakana does (にゃんこ, ニャンコ: ニャンコ). Every rewrite turns some
// hiragana into katakana, so the loop ends; it segments a chunk at most
// maxMoraPasses times.
func moraTokens(tok *tokenizer.Tokenizer, chunk string, mode tokenizer.TokenizeMode) []tokenizer.Token {
	toks := tok.Analyze(chunk, mode)
	for range maxMoraPasses - 1 {
		kata, ok := rewriteBroken(chunk, toks)
		if !ok {
			break
		}
		chunk = kata
		toks = tok.Analyze(chunk, mode)
	}
	return toks
}

// maxMoraPasses bounds the segmentations of a chunk by moraTokens. A pass
// rewrites every broken word it sees; one more pass sees the words that
// became visible, the ordinary text's last (にゃんこ: two).
const maxMoraPasses = 4

// rewriteBroken returns chunk with the words that kagome split inside a
// mora in its tokens toks, and that hold hiragana, written in katakana;
// false when there is none.
func rewriteBroken(chunk string, toks []tokenizer.Token) (string, bool) {
	var b strings.Builder
	done := 0 // chunk[:done] is written to b
	for i := range toks {
		start, end, ok := brokenWord(chunk, toks, i)
		if !ok || start < done {
			continue
		}
		if kata := katakana(chunk[start:end]); kata != chunk[start:end] {
			b.WriteString(chunk[done:start])
			b.WriteString(kata)
			done = end
		}
	}
	if done == 0 {
		return "", false
	}
	b.WriteString(chunk[done:])
	return b.String(), true
}

// katakana returns s with its hiragana written in katakana (same length in
// UTF-8: both blocks are three bytes a character).
func katakana(s string) string {
	return strings.Map(func(r rune) rune {
		if 'ぁ' <= r && r <= 'ゖ' || r == 'ゝ' || r == 'ゞ' {
			return r + 0x60
		}
		return r
	}, s)
}

// brokenWord reports whether the boundary before toks[i] is one that cuts
// a mora (see above), and the byte offsets in chunk of the word it broke.
func brokenWord(chunk string, toks []tokenizer.Token, i int) (start, end int, ok bool) {
	t := toks[i]
	first, _ := utf8.DecodeRuneInString(t.Surface)
	if t.Class != tokenizer.UNKNOWN && isMora(t.Surface) && isContraction(t) && !afterInflection(toks, i) {
		// きゃ + り + ー: a contraction no verb precedes heads a word.
		j := i + 1
		for j < len(toks) && (posOf(toks[j]) == "助動詞" || strings.HasPrefix(toks[j].Surface, "ー")) {
			j++
		}
		return t.Position, extend(chunk, toks[j-1].Position+len(toks[j-1].Surface)), true
	}
	if i == 0 {
		return 0, 0, false
	}
	prev := toks[i-1]
	prevLast, size := utf8.DecodeLastRuneInString(prev.Surface)
	switch {
	case !isKana(prevLast):
		return 0, 0, false
	case isSmallKana(first) || t.Class == tokenizer.UNKNOWN && (first == 'っ' || first == 'ッ'):
		// に + ゃんこ: the word starts at the last kana of prev.
		end = t.Position + len(t.Surface)
		if t.Class == tokenizer.UNKNOWN {
			end = t.Position + particleCut(t.Surface)
		}
		return prev.Position + len(prev.Surface) - size, extend(chunk, end), true
	case first == 'ー' && (prev.Class == tokenizer.UNKNOWN || isSmallKana(prevLast) && !afterInflection(toks, i-1)):
		// ぴゅ + ー, にゃ + ー.
		return prev.Position, extend(chunk, t.Position+len(t.Surface)), true
	}
	return 0, 0, false
}

// isMora reports whether s is one mora with a small kana (きゃ, しゃ).
func isMora(s string) bool {
	last, size := utf8.DecodeLastRuneInString(s)
	return utf8.RuneCountInString(s) == 2 && isSmallKana(last) && isKana([]rune(s[:len(s)-size])[0])
}

// particleCut returns the length in bytes of the part of kagome's unknown
// word s (which starts inside a mora) that belongs to the joined word: up to
// the first particle that does not head a mora, else all of s.
func particleCut(s string) int {
	for i, r := range s {
		if i == 0 || !strings.ContainsRune("がをにはとのもで", r) {
			continue
		}
		if next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):]); !isSmallKana(next) {
			return i
		}
	}
	return len(s)
}

// extend returns end moved over the prolonged sound marks that follow it in
// chunk, and over a ん after the word's last ー (びょーん).
func extend(chunk string, end int) int {
	for strings.HasPrefix(chunk[end:], "ー") {
		end += len("ー")
	}
	if strings.HasSuffix(chunk[:end], "ー") && strings.HasPrefix(chunk[end:], "ん") {
		end += len("ん")
	}
	return end
}

// afterInflection reports whether toks[i] follows a verb, an adjective or an
// auxiliary, after which a contraction or a mora with a small kana is an
// ending (行かなきゃ, 見ちゃ).
func afterInflection(toks []tokenizer.Token, i int) bool {
	if i == 0 || toks[i-1].Class == tokenizer.UNKNOWN {
		return false
	}
	switch posOf(toks[i-1]) {
	case "動詞", "形容詞", "助動詞":
		return true
	}
	return false
}

// isContraction reports whether t is a contracted conditional of a verb or
// an auxiliary (仮定縮約: 書きゃ, なきゃ).
func isContraction(t tokenizer.Token) bool {
	form, _ := t.FeatureAt(5)
	return strings.HasPrefix(form, "仮定縮約")
}

// posOf returns the part of speech of t (its first feature).
func posOf(t tokenizer.Token) string {
	pos, _ := t.FeatureAt(0)
	return pos
}

// isSmallKana reports whether r is a small kana that can only end a mora:
// ぁぃぅぇぉゃゅょゎ and their katakana (っ, which also ends words, aside).
func isSmallKana(r rune) bool {
	return strings.ContainsRune("ぁぃぅぇぉゃゅょゎァィゥェォャュョヮ", r)
}

// isKana reports whether r is hiragana or katakana (not ー).
func isKana(r rune) bool { return lang.ScriptOf(r) == lang.Kana }

// prolong is CJK2's normalize step for Japanese: a small vowel that repeats
// the vowel of the kana before it is a prolonged sound, as ー is (へぇ,
// なるほどぉ, うわぁぁ, すげぇ: へー, なるほどー, うわーー, すげー), not the end of
// a mora of its own as in ふぁ, てぃ, うぃ, whose vowels differ. So the mora
// repair leaves it to the word before it, and a stray one after a known word
// is dropped as ー is.
func prolong(text string) string {
	if !strings.ContainsAny(text, "ぁぃぅぇぉァィゥェォ") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	var prev rune
	for _, r := range text {
		if v := vowel(r); v != 0 && isSmallKana(r) && vowel(prev) == v && !isSmallYo(r) {
			b.WriteRune('ー')
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// isSmallYo reports whether r is a small ゃゅょゎ (which end a mora whatever
// the vowel before them).
func isSmallYo(r rune) bool { return strings.ContainsRune("ゃゅょゎャュョヮ", r) }

// vowel returns the vowel of a kana ('a', 'i', 'u', 'e', 'o'), 0 for any
// other character (ん, っ, ー).
func vowel(r rune) byte {
	if 'ァ' <= r && r <= 'ヶ' {
		r -= 0x60 // katakana as hiragana
	}
	for _, row := range [...]struct {
		v    byte
		kana string
	}{
		{'a', "あかさたなはまやらわがざだばぱぁゃゎゕ"},
		{'i', "いきしちにひみりぎじぢびぴぃゐ"},
		{'u', "うくすつぬふむゆるぐずづぶぷぅゅゔ"},
		{'e', "えけせてねへめれげぜでべぺぇゑゖ"},
		{'o', "おこそとのほもよろをごぞどぼぽぉょ"},
	} {
		if strings.ContainsRune(row.kana, r) {
			return row.v
		}
	}
	return 0
}
