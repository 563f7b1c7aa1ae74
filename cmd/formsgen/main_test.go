package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/omoide/omoide/tokenize"
)

// The fixture: a few lines of verb.exc, index.verb, noun.exc, index.noun,
// adj.exc and index.adj as WordNet 3.0 writes them.
const (
	verbExc = `abought aby
allowed_for allow_for
ate eat
bore bear
born bear
did do
done do
eaten eat
went go
wound wind
`
	verbIndex = `  1 This software and database is being provided to you, the LICENSEE, by  
aby v 1 1 @ 1 0 02520509  
allow_for v 1 2 @ $ 1 1 02721438  
bear v 13 5 @ ~ * $ + 13 12 02109045 
do v 13 5 @ ~ * $ + 13 13 02560585 01712722 
eat v 6 6 @ ~ * ^ $ + 6 3 01168486 01166369 
go v 30 6 @ ~ * ^ $ + 30 21 01835496 
wind v 7 6 ! @ ~ * $ + 7 3 01882832 
`
	nounExc = `aardwolves aardwolf
mice mouse
`
	nounIndex = `aardwolf n 1 1 @ 1 0 02114100  
mouse n 4 5 @ ~ #p %p + 4 1 02330245  
`
	adjExc = `better good well
costlier costly
`
	adjIndex = `costly a 2 2 & + 2 2 00933941 00933599  
good a 21 5 ! & ^ = + 21 16 01123148 
well a 3 3 ! & ^ 3 1 02460502 
`
)

func gen(t *testing.T) []byte {
	t.Helper()
	a, err := tokenize.ByName(tokenize.DefaultAnalyzer)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := generate(&b, a,
		source{strings.NewReader(verbExc), strings.NewReader(verbIndex)},
		source{strings.NewReader(nounExc), strings.NewReader(nounIndex)},
		source{strings.NewReader(adjExc), strings.NewReader(adjIndex)},
	); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGenerate: the same bytes each run; a group a line, stemmed as the
// analyzer indexes, the lemma's first; rare lemmas (aby, aardwolf),
// multiword ones, stop words (did, done), homographs (wound, born, bore)
// and -ly adjectives that stem as their base (costly) left out.
func TestGenerate(t *testing.T) {
	out := gen(t)
	if again := gen(t); !bytes.Equal(out, again) {
		t.Fatal("two runs wrote different bytes")
	}
	want := "eat ate eaten\ngo went\ngood better\nmous mice\nwell better\n"
	if string(out) != want {
		t.Errorf("table:\n%s\nwant:\n%s", out, want)
	}
}

// TestReadTaggedRejects: an index line without its counts is an error, not
// a silent skip.
func TestReadTaggedRejects(t *testing.T) {
	for _, bad := range []string{"eat v 6\n", "eat v 6 x @\n", "eat v 6 6 @ ~\n"} {
		if _, err := readTagged(strings.NewReader(bad)); err == nil {
			t.Errorf("readTagged(%q): no error", bad)
		}
	}
}
