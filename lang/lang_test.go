package lang

import (
	"math"
	"testing"
)

// TestDetect: kana is Japanese, Hangul Korean, Han alone the hint's (Chinese
// without one), Latin and the rest Other, whatever the hint.
func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		name       string
		text       string
		hint, want Language
	}{
		{"Japanese with kana", "昨日ラーメンを食べた", Other, Japanese},
		{"Japanese with kana, any hint", "ありがとう", Chinese, Japanese},
		{"katakana only", "カタカナ", Korean, Japanese},
		{"ー alone is Japanese", "ー", Other, Japanese},
		{"half-width katakana", "ｶﾀｶﾅ", Other, Japanese},
		{"Han only without a hint is Chinese", "東京都庁", Other, Chinese},
		{"Han only as Chinese by the hint", "我昨天去了北京", Chinese, Chinese},
		{"Han only as Japanese by the hint", "東京都庁", Japanese, Japanese},
		{"Han only as Korean by the hint", "大韓民國", Korean, Korean},
		{"Korean", "어제 학교에서 친구를 만났어", Other, Korean},
		{"Korean, any hint", "안녕하세요", Japanese, Korean},
		{"Hangul jamo", "ㅋㅋㅋ", Other, Korean},
		{"Latin", "I went to Kyoto", Other, Other},
		{"Latin with a hint", "I went to Kyoto", Japanese, Other},
		{"Latin extended", "Ứng dụng", Other, Other},
		{"Cyrillic", "привет", Chinese, Other},
		{"mixed: kana first", "韓国語で안녕", Other, Japanese},
		{"mixed: kana after Hangul", "안녕 ありがとう", Other, Japanese},
		{"mixed: Hangul before Han", "大韓民國 만세", Japanese, Korean},
		{"mixed: Latin and Han", "iPhone 很好", Other, Chinese},
		{"mixed: Latin and Han by the hint", "iPhone 最高", Japanese, Japanese},
		{"digits and punctuation", "12:30!?", Other, Other},
		{"empty", "", Other, Other},
		{"empty with a hint", "", Japanese, Other},
	} {
		if got := Detect(tt.text, tt.hint); got != tt.want {
			t.Errorf("%s: Detect(%q, %q) = %q, want %q", tt.name, tt.text, tt.hint, got, tt.want)
		}
	}
}

// TestScriptOf: a character's script, letter or not, and any other letter.
func TestScriptOf(t *testing.T) {
	for _, tt := range []struct {
		r    rune
		want Script
	}{
		{'あ', Kana}, {'ア', Kana}, {'ｱ', Kana}, {'ゝ', Kana},
		{'ー', OtherLetter}, // script Common: Detect alone reads it as Japanese
		{'漢', Han}, {'々', Han}, {'〇', Han},
		{'한', Hangul}, {'ㅋ', Hangul},
		{'a', Latin}, {'Z', Latin}, {'é', Latin}, {'Ⅳ', Latin},
		{'я', OtherLetter}, {'ا', OtherLetter},
		{'1', NoScript}, {' ', NoScript}, {'!', NoScript}, {'。', NoScript}, {'😊', NoScript}, {'\u0301', NoScript},
	} {
		if got := ScriptOf(tt.r); got != tt.want {
			t.Errorf("ScriptOf(%q) = %d, want %d", tt.r, got, tt.want)
		}
	}
}

// TestShares: the shares of a text's letters in each script.
func TestShares(t *testing.T) {
	for _, tt := range []struct {
		name                     string
		text                     string
		kana, han, hangul, latin float64
	}{
		{"Japanese with kana", "ラーメン食べた", 5.0 / 7, 1.0 / 7, 0, 0}, // ー is a letter of no script here
		{"Han only", "東京都庁", 0, 1, 0, 0},
		{"Korean and Latin", "안녕 hi!", 0, 0, 0.5, 0.5},
		{"Latin", "Hello, world", 0, 0, 0, 1},
		{"mixed with another letter", "iPhoneを買った я", 3.0 / 11, 1.0 / 11, 0, 6.0 / 11},
		{"no letters", "12 !?", 0, 0, 0, 0},
		{"empty", "", 0, 0, 0, 0},
	} {
		k, h, g, l := Shares(tt.text)
		if math.Abs(k-tt.kana)+math.Abs(h-tt.han)+math.Abs(g-tt.hangul)+math.Abs(l-tt.latin) > 1e-12 {
			t.Errorf("%s: Shares(%q) = %v %v %v %v, want %v %v %v %v", tt.name, tt.text, k, h, g, l, tt.kana, tt.han, tt.hangul, tt.latin)
		}
	}
}

// TestParse: a hint is "" or a BCP 47 tag of ja, zh, ko or en, in any case
// (tags are case-insensitive), and nothing else: no surrounding space, no
// other separator, no Unicode letter that only lower-cases to one of them
// (K, the Kelvin sign), so that what the API description's pattern lists is
// what the server accepts.
func TestParse(t *testing.T) {
	for tag, want := range map[string]Language{
		"": Other, "ja": Japanese, "JA": Japanese, "Ja-jP": Japanese, "zh-Hant-TW": Chinese, "ko-KR": Korean,
		"en": Other, "EN-us": Other, "ja-x-private1": Japanese,
	} {
		got, err := Parse(tag)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tag, got, err, want)
		}
	}
	for _, tag := range []string{" ja", "ja ", "\tja", "ja-", "ja--JP", "ja_JP", "jap", "fr", "\u212Ao", "ja-abcdefghi", "ja-JP\n", "ｊａ", "-ja"} {
		if got, err := Parse(tag); err == nil {
			t.Errorf("Parse(%q) = %q, want an error", tag, got)
		}
	}
}
