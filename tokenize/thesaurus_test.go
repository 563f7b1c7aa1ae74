package tokenize

import (
	"slices"
	"testing"

	"github.com/omoide/omoide/synonym"
)

// TestThesaurusSpelledAsItsTerms checks that the analyzers that are a
// Thesaurus are exactly those whose terms the synonym table is spelled as:
// every Japanese word of the table is one query term of KagomeSnowball,
// spelled as it spells it. A table generated before the analyzer changed would
// look up words no message has (run cmd/synonymgen again). A few base forms
// (読み → 読む, すます → する) analyse to another base form when alone, so 1 in
// 1,000 may be spelled otherwise. English terms are stems, and stemming a stem
// again can shorten it (accelerate → acceler → accel), so they are not
// checked.
func TestThesaurusSpelledAsItsTerms(t *testing.T) {
	for _, a := range []Analyzer{Kagome(), Raw(), Bigram()} {
		if _, ok := a.(Thesaurus); ok {
			t.Errorf("%s is a Thesaurus, but the synonym table is not spelled as its terms", a.Name())
		}
	}
	a, ok := KagomeSnowball().(Thesaurus)
	if !ok {
		t.Fatal("KagomeSnowball is not a Thesaurus")
	}
	if err := a.LoadSynonyms(); err != nil {
		t.Fatal(err)
	}
	if got := a.Synonyms("シール"); !slices.Contains(got, "ステッカー") {
		t.Errorf("Synonyms(シール) = %q, want ステッカー among them", got)
	}
	heads, syns, err := synonym.Words()
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) < 20000 {
		t.Fatalf("the table has %d terms, want the whole dictionary (over 20,000)", len(heads))
	}
	checked, other := 0, 0
	for _, w := range slices.Concat(heads, syns) {
		if isASCII(w) {
			continue
		}
		checked++
		switch got := a.Terms(w); {
		case len(got) != 1:
			t.Errorf("%s.Terms(%q) = %q, want one term", a.Name(), w, got)
		case got[0] != w:
			other++
		}
	}
	if other*1000 > checked {
		t.Errorf("%d of %d terms of the table are spelled otherwise by the analyzer", other, checked)
	}
}

func isASCII(s string) bool {
	for _, r := range s {
		if r >= 0x80 {
			return false
		}
	}
	return true
}
