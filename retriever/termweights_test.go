//go:build cgo

package retriever

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/episode/sqlite"
	"github.com/omoide/omoide/tokenize"
)

// weightsStore returns a store of the hash embedder and the default analyzer
// holding n episodes: the first three speak of a fever that got better (熱
// in one, the light verb なる in two), the rest are diary lines holding none
// of 熱, なる and 引っ越し.
func weightsStore(t *testing.T, n int) *sqlite.Store {
	t.Helper()
	h, err := embed.NewHash(embed.HashOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{Embedder: h, Analyzer: tokenize.CJK2()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	day := time.Date(2026, 3, 1, 20, 0, 0, 0, time.UTC)
	eps := []episode.Episode{
		{UserText: "昨日から熱があって病院に行った", ReplyText: "お大事に"},
		{UserText: "やっと元気になった", ReplyText: "よかったね"},
		{UserText: "自転車で遠くまで走ることになった", ReplyText: "気をつけてね"},
	}
	for i := len(eps); i < n; i++ {
		eps = append(eps, episode.Episode{UserText: fmt.Sprintf("日記の%d頁目を書いた", i), ReplyText: "続けてね"})
	}
	for i := range eps {
		eps[i].User, eps[i].OccurredAt = "aoi", day.AddDate(0, 0, -i)
	}
	if _, err := s.Add(context.Background(), eps[:n]); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTermWeights: a message term weighs its IDF, ln(1 + N/(df+1)), over the
// store's N episodes; one no episode holds weighs ln(1+N)·N/(N+youngStore)
// with Options.UnseenTerms (a young store's ignorance says less) and nothing
// without; a light term (なる) weighs lightShare of its IDF with
// Options.LightTerms, all of it without.
func TestTermWeights(t *testing.T) {
	const (
		fever, become, move = "熱", "なる", "引っ越し"
		feverDF, becomeDF   = 1, 2 // the episodes of weightsStore that hold them
	)
	idf := func(n, df int) float64 { return math.Log(1 + float64(n)/float64(df+1)) }
	for _, n := range []int{3, 60} { // a young store, and one three times youngStore
		s := weightsStore(t, n)
		lx, ok := s.Analyzer().(tokenize.Lexicon)
		if !ok || !lx.Light(become) || lx.Light(fever) || lx.Light(move) {
			t.Fatalf("analyzer %s: want a Lexicon for which only %s is light", s.Analyzer().Name(), become)
		}
		// the store's counts are what the weights are derived from: check them first
		df, total, err := s.DocFreq(context.Background(), []string{fever, become, move})
		if err != nil || total != n || !slices.Equal(df, []int{feverDF, becomeDF, 0}) {
			t.Fatalf("N %d: DocFreq = %v, %d, %v; want [%d %d 0] of %d episodes", n, df, total, err, feverDF, becomeDF, n)
		}
		unseen := math.Log(1+float64(n)) * float64(n) / float64(n+youngStore)
		for _, tt := range []struct {
			name          string
			unseen, light bool // Options.UnseenTerms, Options.LightTerms
			want          map[string]float64
		}{
			{"both off", false, false, map[string]float64{fever: idf(n, feverDF), become: idf(n, becomeDF), move: 0}},
			{"unseen terms", true, false, map[string]float64{fever: idf(n, feverDF), become: idf(n, becomeDF), move: unseen}},
			{"light terms", false, true, map[string]float64{fever: idf(n, feverDF), become: lightShare * idf(n, becomeDF), move: 0}},
			{"both on", true, true, map[string]float64{fever: idf(n, feverDF), become: lightShare * idf(n, becomeDF), move: unseen}},
		} {
			t.Run(fmt.Sprintf("N=%d/%s", n, tt.name), func(t *testing.T) {
				o := DefaultOptions()
				o.Synonyms = false // a term's df is its own (Forms, kept on, adds forms to Korean nouns only)
				o.UnseenTerms, o.LightTerms = tt.unseen, tt.light
				r, err := New(s, o)
				if err != nil {
					t.Fatal(err)
				}
				if r.lexicon == nil { // kept by Forms: so that LightTerms alone decides what is light
					t.Fatal("the retriever has no lexicon")
				}
				w, err := r.termWeights(context.Background(), []string{fever, move, become, fever}, nil)
				if err != nil || w == nil {
					t.Fatalf("termWeights = %v, %v", w, err)
				}
				if !slices.Equal(w.terms, []string{become, move, fever}) { // distinct, in byte order
					t.Fatalf("terms %q", w.terms)
				}
				sum := 0.0
				for i, term := range w.terms {
					if math.Abs(w.weights[i]-tt.want[term]) > 1e-12 {
						t.Errorf("weight of %s = %.6f, want %.6f", term, w.weights[i], tt.want[term])
					}
					if got, want := w.unseen[i], tt.unseen && term == move; got != want {
						t.Errorf("unseen[%s] = %v, want %v", term, got, want)
					}
					if got, want := w.light[i], tt.light && term == become; got != want {
						t.Errorf("light[%s] = %v, want %v", term, got, want)
					}
					sum += tt.want[term]
				}
				if math.Abs(w.sum-sum) > 1e-12 {
					t.Errorf("sum = %.6f, want %.6f", w.sum, sum)
				}
			})
		}
	}
}

// TestTermWeightsNothingToWeigh: a message whose only term no episode holds
// weighs nothing without Options.UnseenTerms (nil: no coverage measured),
// and ln(1+N)·N/(N+youngStore) with it.
func TestTermWeightsNothingToWeigh(t *testing.T) {
	const n = 3
	s := weightsStore(t, n)
	for _, unseen := range []bool{false, true} {
		o := DefaultOptions()
		o.Synonyms, o.Forms, o.UnseenTerms = false, false, unseen
		r, err := New(s, o)
		if err != nil {
			t.Fatal(err)
		}
		w, err := r.termWeights(context.Background(), []string{"引っ越し"}, nil)
		switch want := math.Log(1+n) * n / (n + youngStore); {
		case err != nil:
			t.Fatal(err)
		case !unseen && w != nil:
			t.Errorf("without UnseenTerms: weights %v, want nil", w.weights)
		case unseen && (w == nil || math.Abs(w.weights[0]-want) > 1e-12):
			t.Errorf("with UnseenTerms: weights %+v, want [%.6f]", w, want)
		}
	}
}

// TestLightPairAlone: a pair of light terms (する then なる) held side by
// side is no proximity without a content term of the message held too, as
// a light term alone is no coverage; beside 熱 it counts.
func TestLightPairAlone(t *testing.T) {
	// the message する なる 熱: two pairs, する→なる and なる→熱
	w := &termWeights{terms: []string{"する", "なる", "熱"}, weights: []float64{0.2, 0.2, 0.9},
		light: []bool{true, true, false}, next: []int{1, 2, -1}}
	w.sum, w.pairSum = 1.3, (0.2+0.2)+(0.2+0.9)
	w.keys, w.owner = []string{"する", "なる", "熱"}, []int{0, 1, 2}
	for _, tt := range []struct {
		held             []string
		cover, proximity float64
	}{
		{[]string{"する", "なる"}, 0, 0},              // light alone: neither coverage nor proximity
		{[]string{"熱", "する", "なる"}, 1, 0.4 / 1.5}, // beside 熱: the light pair counts, なる→熱 is out of order
		{[]string{"する", "なる", "熱"}, 1, 1},         // both pairs in order
		{[]string{"熱", "病院"}, 0.9 / 1.3, 0},       // content alone: no pair
	} {
		var sc matchScratch
		m := w.match(episode.Terms{User: tt.held}, true, &sc)
		if math.Abs(m.coverage-tt.cover) > 1e-9 || math.Abs(m.proximity-tt.proximity) > 1e-9 {
			t.Errorf("held %q: coverage %.3f proximity %.3f, want %.3f and %.3f", tt.held, m.coverage, m.proximity, tt.cover, tt.proximity)
		}
	}
}
