package wordvec

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Vectors are the learned vectors of a vocabulary of terms: unit length,
// float32, each the dequantised form of its stored int8 row (so that what
// is written is what was used). Vectors are safe for concurrent reads.
type Vectors struct {
	params Params
	terms  []string         // the vocabulary, most seen first
	counts []int64          // times each term was seen when learning
	index  map[string]int32 // term → its row
	dim    int
	rows   []float32 // len(terms)×dim, unit rows
	codes  []int8    // the quantised rows, as stored
	scales []float32 // each row's scale: a value is code·scale
	// fingerprint is the SHA-256 of the encoding (Fingerprint).
	fingerprint [32]byte
}

// Neighbour is a term near another, and the cosine of their vectors.
type Neighbour struct {
	Term   string
	Cosine float32
}

// newVectors quantises rows (one a term, any length) and returns the
// vectors of the terms whose row is not zero.
func newVectors(p Params, terms []string, counts []int64, rows *mat.Dense) (*Vectors, error) {
	_, dim := rows.Dims()
	v := &Vectors{params: p, dim: dim, index: make(map[string]int32, len(terms))}
	row := make([]float64, dim)
	code := make([]int8, dim)
	for i, t := range terms {
		mat.Row(row, i, rows)
		scale, zero := quantize(row, code)
		if zero {
			continue
		}
		v.add(t, counts[i], scale, code)
	}
	if len(v.terms) < 2 {
		return nil, fmt.Errorf("wordvec: %d terms got a vector; need at least 2", len(v.terms))
	}
	return v, v.seal()
}

// quantize writes row's int8 codes, scaled by the largest magnitude, and
// returns the scale; zero says every value is 0 (or not finite).
func quantize(row []float64, code []int8) (scale float32, zero bool) {
	top := 0.0
	for _, x := range row {
		top = max(top, math.Abs(x))
	}
	if top == 0 || math.IsInf(top, 0) || math.IsNaN(top) {
		return 0, true
	}
	for k, x := range row {
		code[k] = int8(math.Round(x / top * 127))
	}
	// The scale makes the dequantised row unit length; rows are normalised
	// again when read, so only the direction matters here.
	norm := 0.0
	for _, c := range code {
		norm += float64(c) * float64(c)
	}
	if norm == 0 {
		return 0, true
	}
	return float32(1 / math.Sqrt(norm)), false
}

// add appends a term with its count, scale and codes.
func (v *Vectors) add(term string, count int64, scale float32, code []int8) {
	v.index[term] = int32(len(v.terms))
	v.terms = append(v.terms, term)
	v.counts = append(v.counts, count)
	v.scales = append(v.scales, scale)
	v.codes = append(v.codes, code...)
	norm := 0.0
	for _, c := range code {
		x := float64(c) * float64(scale)
		norm += x * x
	}
	inv := 1 / math.Sqrt(norm)
	for _, c := range code {
		v.rows = append(v.rows, float32(float64(c)*float64(scale)*inv))
	}
}

// seal computes the fingerprint of the vectors once they are complete.
func (v *Vectors) seal() error {
	h, err := v.encodeBody(nil)
	if err != nil {
		return err
	}
	copy(v.fingerprint[:], h)
	return nil
}

// Params returns how the vectors were learned.
func (v *Vectors) Params() Params { return v.params }

// Dim returns the number of dimensions of a vector.
func (v *Vectors) Dim() int { return v.dim }

// Len returns the number of terms with a vector.
func (v *Vectors) Len() int { return len(v.terms) }

// Terms returns the vocabulary, most seen first. The slice is shared: do not
// modify it.
func (v *Vectors) Terms() []string { return v.terms }

// Count returns how many times term was seen when learning; 0 when it has no
// vector.
func (v *Vectors) Count(term string) int64 {
	if i, ok := v.index[term]; ok {
		return v.counts[i]
	}
	return 0
}

// Fingerprint returns the SHA-256 (hex) of the vectors' encoding: the same
// for the same parameters, terms, counts and quantised rows, whether learned
// or read.
func (v *Vectors) Fingerprint() string { return fmt.Sprintf("%x", v.fingerprint) }

// Lookup returns the unit vector of term, or false when it has none. The
// slice is shared: do not modify it.
func (v *Vectors) Lookup(term string) ([]float32, bool) {
	i, ok := v.index[term]
	if !ok {
		return nil, false
	}
	return v.row(int(i)), true
}

// row returns row i.
func (v *Vectors) row(i int) []float32 { return v.rows[i*v.dim : (i+1)*v.dim : (i+1)*v.dim] }

// Nearest returns the k terms whose vectors are nearest to term's (by
// cosine, highest first; ties in byte order of the term), without term
// itself; nil when term has no vector.
func (v *Vectors) Nearest(term string, k int) []Neighbour {
	i, ok := v.index[term]
	if !ok {
		return nil
	}
	return v.nearest(v.row(int(i)), k, int(i))
}

// NearestTo returns the k terms whose vectors are nearest to vec (by cosine,
// highest first; ties in byte order of the term); nil when vec is not of
// Dim dimensions or is zero.
func (v *Vectors) NearestTo(vec []float32, k int) []Neighbour {
	if len(vec) != v.dim {
		return nil
	}
	norm := 0.0
	for _, x := range vec {
		norm += float64(x) * float64(x)
	}
	if norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
		return nil
	}
	unit := make([]float32, v.dim)
	for j, x := range vec {
		unit[j] = float32(float64(x) / math.Sqrt(norm))
	}
	return v.nearest(unit, k, -1)
}

// nearest returns the k rows nearest to the unit vector q, without row
// skip.
func (v *Vectors) nearest(q []float32, k, skip int) []Neighbour {
	if k <= 0 {
		return nil
	}
	best := make([]Neighbour, 0, k+1)
	worse := func(a, b Neighbour) int { // a before b: higher cosine, then term
		return cmp.Or(cmp.Compare(b.Cosine, a.Cosine), strings.Compare(a.Term, b.Term))
	}
	for i := range v.terms {
		if i == skip {
			continue
		}
		nb := Neighbour{Term: v.terms[i], Cosine: dot(q, v.row(i))}
		if len(best) == k && worse(nb, best[k-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, nb, worse)
		best = slices.Insert(best, at, nb)
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}

// Similarity returns the cosine of the vectors of two terms, and false when
// either has none.
func (v *Vectors) Similarity(a, b string) (float32, bool) {
	x, ok := v.Lookup(a)
	if !ok {
		return 0, false
	}
	y, ok := v.Lookup(b)
	if !ok {
		return 0, false
	}
	return dot(x, y), true
}

// dot returns the dot product of two vectors of one length.
func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
