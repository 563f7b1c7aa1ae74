package tokenize

import (
	"slices"
	"strings"
	"testing"

	"github.com/kljensen/snowball/english"
)

// TestTermsLeaveOut: a query leaves out what is no word (the pieces of
// English contractions, their spellings without the apostrophe, ん and の)
// and what only asks (몇), while Index keeps every term: a store's
// analyzer name keeps its index terms.
func TestTermsLeaveOut(t *testing.T) {
	a := CJK2()
	for _, tt := range []struct {
		text  string
		terms []string
		index string
	}{
		{"I'm so tired today", []string{"tire", "today"}, "i m so tire today"},
		{"I’m so tired", []string{"tire"}, "i m so tire"}, // the phone's apostrophe
		{"don´t worry", []string{"worri"}, "don t worri"}, // ´: NFKC writes a space and a combining acute
		{"I've been feeling down, we're going, I'd like it, you'll see", []string{"feel", "go", "like", "see"}, ""},
		{"didn't you say you went to Kyoto?", []string{"say", "went", "kyoto"}, "didn t you say you went to kyoto"},
		{"I won't go, he won the game", []string{"go", "won", "game"}, "i won t go he won the game"}, // "won't" is no "won"
		{"I haven't seen the safe haven", []string{"seen", "safe", "haven"}, ""},
		{"Biscuit's toy", []string{"biscuit", "toy"}, "biscuit s toy"},
		{"im so tired, dont know, cant sleep", []string{"tire", "know", "sleep"}, "im so tire dont know cant sleep"},
		{"u ok? ur dog", []string{"ok", "dog"}, ""},
		{"vitamin d and 3d", []string{"vitamin", "d", "3d"}, ""}, // no apostrophe: d is a word here
		{"rock'n'roll o'clock", []string{"rock", "n", "roll", "o", "clock"}, ""},
		{"I'm東京 it's", []string{"i", "東京", "東", "京", "it"}, "i m 東京 東 京 it s"}, // Chinese: stop words are kept, pieces are not
		{"iPhone'm 샀어", []string{"iphon", "샀어"}, ""},
		{"行くのが好き", []string{"行く", "好き"}, "行く の 好き"},
		{"行くんだよ", []string{"行く"}, "行く ん"},
		{"토익 점수 몇 점이었지", []string{"토익", "점수", "점이", "이었", "었지"}, "토익 점수 몇 점이 이었 었지"},
		{"몇시에 만날까", []string{"만날", "날까"}, ""},
		{"그때 갔던 카페 어디였지", []string{"그때", "갔던", "카페", "였지"}, ""},
	} {
		if got := a.Terms(tt.text); !slices.Equal(got, tt.terms) {
			t.Errorf("Terms(%q) = %q, want %q", tt.text, got, tt.terms)
		}
		if tt.index != "" {
			if got := a.Index(tt.text); got != tt.index {
				t.Errorf("Index(%q) = %q, want %q", tt.text, got, tt.index)
			}
		}
	}
	// KagomeSnowball, which stems, leaves them out too; Kagome keeps its
	// terms (the hash embedder's word features).
	if got, want := KagomeSnowball().Terms("I'm tired, don't go"), []string{"tire", "go"}; !slices.Equal(got, want) {
		t.Errorf("KagomeSnowball().Terms = %q, want %q", got, want)
	}
	if got, want := Kagome().Terms("I'm tired, don't go"), []string{"i", "m", "tired", "don", "t", "go"}; !slices.Equal(got, want) {
		t.Errorf("Kagome().Terms = %q, want %q", got, want)
	}
}

// TestBlankContractions: the pieces go as spaces of their own length, so
// runs of other scripts do not move; a word's own apostrophe stays.
func TestBlankContractions(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"i'm tired", "i'  tired"},
		{"i’ll go", "i’   go"},
		{"we're, they've, he'd", "we'  , they'  , he' "},
		{"don't", "   ' "},
		{"won't", "   ' "},
		{"can`t", "   ` "},
		{"it's", "it' "},
		{"o'clock", "o'clock"},
		{"'em", "'em"},
		{"ab1c'd", "ab1c'd"},             // not an English word
		{"x\u20dddon't", "x\u20dddon't"}, // a mark joins x and don in one run: no English head
		{"i'mx", "i'mx"},                 // not the tail of a word
		{"i'm東京", "i' 東京"},               // a run of Han follows
		{"猫's", "猫's"},                   // no English head
		{"no apostrophe", "no apostrophe"},
	} {
		if got := blankContractions(tt.in); got != tt.want {
			t.Errorf("blankContractions(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEnglishForms: an English query term stands for its word's irregular
// forms as the analyzer stems them, both ways; a form whose everyday sense
// is another word (wound, lives) stands for nothing; only stemming
// analyzers have them.
func TestEnglishForms(t *testing.T) {
	lx := CJK2().(Lexicon)
	for _, tt := range []struct {
		term string
		want []string
	}{
		{"eat", []string{"ate", "eaten"}},
		{"ate", []string{"eat", "eaten"}},
		{"ran", []string{"run"}},
		{"run", []string{"ran"}},
		{"broke", []string{"break", "broken"}},
		{"bought", []string{"buy"}},
		{"felt", []string{"feel"}},
		{"went", []string{"go", "gone"}},
		{"mice", []string{"mous"}},
		{"mous", []string{"mice"}},
		{"children", []string{"child"}},
		{"better", []string{"good", "best", "well"}},
		{"wors", []string{"bad", "worst"}},
		{"wound", nil}, // a wound, not wind's past
		{"live", nil},  // the verb, not life's plural
		{"cost", nil},  // costlier is costly's, not cost's
		{"did", nil},   // stop words are never asked for
		{"biscuit", nil},
		{"눈", []string{"눈이", "눈은", "눈을", "눈과", "눈으", "눈에", "눈의", "눈도", "눈만"}},
	} {
		if got := lx.Forms(tt.term); !slices.Equal(got, tt.want) {
			t.Errorf("Forms(%q) = %q, want %q", tt.term, got, tt.want)
		}
	}
	// Each call has its own slice.
	if f := lx.Forms("eat"); len(f) > 0 {
		f[0] = "x"
		if lx.Forms("eat")[0] != "ate" {
			t.Error("Forms shares its slice")
		}
	}
	if got := Kagome().(Lexicon).Forms("ate"); got != nil {
		t.Errorf("Kagome().Forms(ate) = %q: its index is not stemmed", got)
	}

	// A message's term meets a memory's irregular form through Forms.
	a := CJK2()
	index := strings.Fields(a.Index("Biscuit ate a sock"))
	held := false
	for _, term := range a.Terms("did Biscuit eat something weird again?") {
		for _, f := range lx.Forms(term) {
			held = held || slices.Contains(index, f)
		}
	}
	if !held {
		t.Errorf("no form of %q is in %q", a.Terms("did Biscuit eat something weird again?"), index)
	}

	// The table is spelled as the analyzer stems: a word's index term
	// stands for the index terms of its lemma's irregular forms.
	for _, tt := range []struct{ word, form string }{
		{"eating", "ate"}, {"eaten", "eat"}, {"mouse", "mice"}, {"breaking", "broken"}, {"worse", "bad"},
		{"feeling", "felt"}, {"buying", "bought"}, {"children", "child"}, {"teeth", "tooth"}, {"happier", "happi"},
	} {
		term, form := a.Index(tt.word), a.Index(tt.form)
		if !slices.Contains(lx.Forms(term), form) {
			t.Errorf("Forms(%q) = %q, without %q (%s)", term, lx.Forms(term), form, tt.form)
		}
	}
	// Every stem is a word of a to z that a query may hold (no stop word,
	// no fragment), and the relation is symmetric.
	for line := range strings.Lines(englishFormsTable) {
		stems := strings.Fields(line)
		if len(stems) < 2 {
			t.Errorf("table line %q: fewer than two stems", line)
		}
		for _, s := range stems {
			if !isASCIIWord(s) || english.IsStopWord(s) || isFragment(s) {
				t.Errorf("table line %q: %q is no query term", line, s)
			}
			for _, f := range lx.Forms(s) {
				if !slices.Contains(lx.Forms(f), s) {
					t.Errorf("Forms(%q) holds %q, but not the other way", s, f)
				}
			}
		}
	}
}

// TestEnglishLightForms: the irregular forms of a light verb or evaluation
// are light as it is, so that a form's class weighs alike (went as go).
func TestEnglishLightForms(t *testing.T) {
	lx := CJK2().(Lexicon)
	for _, term := range []string{"get", "go", "make", "take", "come", "give", "say", "tell", "think", "know", "feel", "mean", "begin", "good", "bad", "well"} {
		if !lx.Light(term) {
			t.Errorf("Light(%q) = false", term)
		}
		for _, f := range lx.Forms(term) {
			if !lx.Light(f) {
				t.Errorf("Light(%q) = false, a form of light %q", f, term)
			}
		}
	}
}
