package tokenize

import "testing"

// TestParseLanguage: a hint is "" or a BCP 47 tag of ja, zh, ko or en, in
// any case (tags are case-insensitive), and nothing else: no surrounding
// space, no other separator, no Unicode letter that only lower-cases to one
// of them (K, the Kelvin sign), so that what the API description's pattern
// lists is what the server accepts.
func TestParseLanguage(t *testing.T) {
	for tag, want := range map[string]Language{
		"": Other, "ja": Japanese, "JA": Japanese, "Ja-jP": Japanese, "zh-Hant-TW": Chinese, "ko-KR": Korean,
		"en": Other, "EN-us": Other, "ja-x-private1": Japanese,
	} {
		got, err := ParseLanguage(tag)
		if err != nil || got != want {
			t.Errorf("ParseLanguage(%q) = %q, %v; want %q", tag, got, err, want)
		}
	}
	for _, tag := range []string{" ja", "ja ", "\tja", "ja-", "ja--JP", "ja_JP", "jap", "fr", "\u212Ao", "ja-abcdefghi", "ja-JP\n", "ｊａ", "-ja"} {
		if got, err := ParseLanguage(tag); err == nil {
			t.Errorf("ParseLanguage(%q) = %q, want an error", tag, got)
		}
	}
}
