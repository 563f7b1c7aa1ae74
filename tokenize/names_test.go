package tokenize

import (
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	a := KagomeSnowball().(NameFinder)
	cases := []struct {
		text string
		want []string
	}{
		{"What did Caroline research?", []string{"carolin"}},
		{"Caroline went to the LGBTQ support group.", []string{"lgbtq"}}, // a sentence's first word is no evidence
		{"I saw Jon. Barcelona was great, said Jon", []string{"jon"}},
		{"Which city have both Jean and John visited?", []string{"jean", "john"}},
		{"When did Melanie go camping in June, on a Sunday?", []string{"melani"}},
		{"Would she like Dr. Seuss books?", []string{"seuss"}},
		{"we talked with Mr Tanaka about \"Kyoto\"", []string{"tanaka", "kyoto"}},
		{"Did you watch TV with Gina's HR team?", []string{"gina"}}, // two capitals are no name
		{"ok. then: Mike and mike and MIKE", []string{"mike"}},
		{"Tomorrow?\nParis!", nil},
		{"昨日は田中さんと京都に行ったよ", nil}, // Japanese proper nouns are not reported
		// a Latin name in another script's message may be held transliterated
		{"このあいだNetflixでStranger Thingsを見た", nil},
		{"Google의 Mayer를 CEO로 지명하기 위해 Yahoo! 보고서", nil},
		{"我昨天和Caroline去了Barcelona", nil},
		{"I watched Stranger Things on Netflix", []string{"stranger", "thing", "netflix"}},
		{"", nil},
	}
	for _, c := range cases {
		if got := a.Names(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Names(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	for _, other := range []Analyzer{Raw(), Bigram()} {
		if _, ok := other.(NameFinder); ok {
			t.Errorf("%s finds names; the gate would trust it", other.Name())
		}
	}
}
