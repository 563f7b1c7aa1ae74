package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/omoide/omoide/thesaurus"
	"golang.org/x/text/encoding/japanese"
)

// fixture returns the readers of testdata's small EDICT (encoded as EUC-JP,
// as Debian ships it) and WordNet noun files.
func fixture(t *testing.T) (edict, index, data *bytes.Reader) {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	euc, err := japanese.EUCJP.NewEncoder().Bytes(read("edict.utf8"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(euc), bytes.NewReader(read("index.noun")), bytes.NewReader(read("data.noun"))
}

func gen(t *testing.T, cfg config) []byte {
	t.Helper()
	isKey, err := keys()
	if err != nil {
		t.Fatal(err)
	}
	e, i, d := fixture(t)
	var b bytes.Buffer
	if _, err := generate(&b, e, i, d, isKey, cfg); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGenerate makes a table of the fixture twice, the same bytes each time,
// and reads it back with package thesaurus.
func TestGenerate(t *testing.T) {
	out := gen(t, defaults)
	if again := gen(t, defaults); !bytes.Equal(out, again) {
		t.Fatal("two runs wrote different bytes")
	}
	tb, err := thesaurus.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		a, b string
		want thesaurus.Relation
	}{
		{"犬", "猫", thesaurus.Sibling},
		{"京都", "大阪", thesaurus.Sibling}, // instance hypernyms count
		{"犬", "動物", thesaurus.KindOf},
		{"アルバイト", "バイト", thesaurus.Equivalent}, // the same gloss, no WordNet noun
		{"たばこ", "煙草", thesaurus.Equivalent},    // (uk): its kana reading is a word too
		{"犬", "京都", thesaurus.None},
	} {
		if got := tb.Relate(tt.a, tt.b); got != tt.want {
			t.Errorf("Relate(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	for w, want := range map[string]bool{
		"犬": true, "たばこ": true,
		"いぬ":   false, // a reading without (uk) in the first sense
		"ネコ":   false, // no (P)
		"走る":   false, // no noun
		"天気予報": false, // two query terms
	} {
		if got := tb.Has(w); got != want {
			t.Errorf("Has(%s) = %v, want %v", w, got, want)
		}
	}
	// dog's second sense (frump) is left out with one sense a gloss
	if got := tb.Kinds("犬"); len(got) != 1 || got[0] != "動物" {
		t.Errorf("Kinds(犬) = %q, want [動物]", got)
	}
}

// TestGeneralHypernym: a common hypernym with more hyponyms than the limit
// makes no siblings.
func TestGeneralHypernym(t *testing.T) {
	cfg := defaults
	cfg.general = 1 // carnivore has two hyponyms
	tb, err := thesaurus.Parse(gen(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.Relate("犬", "猫"); got != thesaurus.None {
		t.Errorf("Relate(犬, 猫) = %v under a general carnivore, want none", got)
	}
}

func TestReadRejects(t *testing.T) {
	if _, err := readIndex(bytes.NewReader([]byte("dog n 2 1 @ 2 1 00000004\n")), 1); err == nil {
		t.Error("readIndex accepted a line whose counts do not match")
	}
	if _, err := readData(bytes.NewReader([]byte("00000004 05 n 02 dog 0 | x\n"))); err == nil {
		t.Error("readData accepted a line with fewer words than its count")
	}
}
