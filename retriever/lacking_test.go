package retriever

import (
	"github.com/omoide/omoide/episode"
	"math"
	"testing"
)

// TestLacking: what a candidate lacks is its most informative missing
// message term, over the message's most informative one: a look-alike that
// holds the frame (男性, 弾く) but not the content word (ギター) lacks 1; one
// that holds the content word lacks only what the frame weighs.
func TestLacking(t *testing.T) {
	w := &termWeights{terms: []string{"ギター", "弾く", "男性"}, weights: []float64{4, 1, 2}, next: []int{-1, -1, -1}}
	w.sum = 7
	w.keys, w.owner = []string{"ギター", "弾く", "男性"}, []int{0, 1, 2}
	for _, tt := range []struct {
		held          []string
		cover, lacked float64
	}{
		{[]string{"男性", "ピアノ", "弾く"}, 3.0 / 7, 1},
		{[]string{"男性", "ギター"}, 6.0 / 7, 1.0 / 4},
		{[]string{"ギター", "弾く", "男性"}, 1, 0},
		{nil, 0, 1},
	} {
		var sc matchScratch
		m := w.match(episode.Terms{User: tt.held}, true, &sc)
		if math.Abs(m.coverage-tt.cover) > 1e-9 || math.Abs(m.lacking-tt.lacked) > 1e-9 {
			t.Errorf("held %q: coverage %.3f lacking %.3f, want %.3f and %.3f", tt.held, m.coverage, m.lacking, tt.cover, tt.lacked)
		}
	}
}

// TestLightAlone (issue 42, item 6): a light term (なる) covers nothing
// alone, and counts beside a held content term; a term no episode holds
// (引っ越し) weighs in the sum but not in what a candidate lacks.
func TestLightAlone(t *testing.T) {
	w := &termWeights{terms: []string{"なる", "引っ越し", "熱"}, weights: []float64{0.2, 1.4, 0.9},
		light: []bool{true, false, false}, unseen: []bool{false, true, false}, next: []int{-1, -1, -1}}
	w.sum = 2.5
	w.keys, w.owner = []string{"なる", "引っ越し", "熱"}, []int{0, 1, 2}
	for _, tt := range []struct {
		held          []string
		cover, lacked float64
	}{
		{[]string{"なる"}, 0, 1},
		{[]string{"熱"}, 0.9 / 2.5, 0.2 / 0.9},
		{[]string{"熱", "なる"}, 1.1 / 2.5, 0},
		{nil, 0, 1},
	} {
		var sc matchScratch
		m := w.match(episode.Terms{User: tt.held}, true, &sc)
		if math.Abs(m.coverage-tt.cover) > 1e-9 || math.Abs(m.lacking-tt.lacked) > 1e-9 {
			t.Errorf("held %q: coverage %.3f lacking %.3f, want %.3f and %.3f", tt.held, m.coverage, m.lacking, tt.cover, tt.lacked)
		}
	}
}
