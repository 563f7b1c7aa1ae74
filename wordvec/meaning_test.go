package wordvec

import (
	"slices"
	"testing"
)

// TestMeaningNear: a term's neighbours come nearest first, at least min
// apart, without itself, its twin first; a term (or a neighbour) seen in more
// than maxShare of the tokens is left out; asked again, the same answer.
func TestMeaningNear(t *testing.T) {
	v := learn(t, topicCorpus(4, 300, 1), Options{Dim: 16})
	m, err := v.Meaning()
	if err != nil {
		t.Fatal(err)
	}
	near := m.Near("x0", 3, 0, 0)
	if len(near) != 3 || near[0] != "y0" || slices.Contains(near, "x0") {
		t.Fatalf("Near(x0) = %q, want its twin y0 first, and not itself", near)
	}
	if again := m.Near("x0", 3, 0, 0); !slices.Equal(again, near) {
		t.Errorf("Near(x0) again = %q, first %q", again, near)
	}
	if got := m.Near("x0", 3, 0.999, 0); len(got) != 0 {
		t.Errorf("Near(x0) at cosine 0.999: %q, want none", got)
	}
	share := float64(v.Count("y0")) / float64(sum(v)) // every twin is seen about as often
	if got := m.Near("x0", 3, 0, share/2); len(got) != 0 {
		t.Errorf("Near(x0) with a max share below the twins': %q, want none (x0 itself is too common)", got)
	}
	if got := m.Near("nope", 3, 0, 0); got != nil {
		t.Errorf("Near of a term without a vector: %q", got)
	}
	if m.Analyzer() != "raw" {
		t.Errorf("Analyzer = %q, want the learning analyzer's name", m.Analyzer())
	}
}

func sum(v *Vectors) int64 {
	var n int64
	for _, term := range v.Terms() {
		n += v.Count(term)
	}
	return n
}
