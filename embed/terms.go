package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
)

// TermVectors are word vectors of an analyzer's index terms, each of unit
// length (wordvec.Vectors), with how often each term was seen when they were
// learned.
type TermVectors interface {
	Dim() int
	Terms() []string
	Count(term string) int64
	Lookup(term string) ([]float32, bool)
	Fingerprint() string
}

// DefaultSIF is the a of the smooth inverse frequency weight a/(a+p(term))
// (Arora et al. 2017): a term seen in one of a thousand places counts half.
const DefaultSIF = 1e-3

// TermOptions configure NewTerms.
type TermOptions struct {
	// Index returns an analyzer's index terms of a text, space-separated
	// (tokenize.Analyzer.Index): the analyzer the vectors were learned with.
	Index func(text string) string
	// Analyzer names that analyzer, for the Identity.
	Analyzer string
	// SIF is the a of the terms' weights; 0 means DefaultSIF.
	SIF float64
}

// Terms embeds a text as the SIF-weighted mean of its index terms' learned
// vectors, normalised: texts that say one thing in other words (バイト,
// アルバイト) come near, as far as the vectors learned it. A text none of
// whose terms has a vector is the zero vector. It is safe for concurrent use.
type Terms struct {
	v        TermVectors
	index    func(string) string
	sif      float64
	total    float64
	id       Identity
	analyzer string
}

// NewTerms returns the embedder of v's terms.
func NewTerms(v TermVectors, opts TermOptions) (*Terms, error) {
	if v == nil || v.Dim() <= 0 {
		return nil, errors.New("embed: terms: no vectors")
	}
	if opts.Index == nil || opts.Analyzer == "" {
		return nil, errors.New("embed: terms: the analyzer the vectors were learned with is required (TermOptions.Index, Analyzer)")
	}
	t := &Terms{v: v, index: opts.Index, sif: opts.SIF, analyzer: opts.Analyzer}
	if t.sif <= 0 {
		t.sif = DefaultSIF
	}
	for _, term := range v.Terms() {
		t.total += float64(v.Count(term))
	}
	if t.total <= 0 {
		return nil, errors.New("embed: terms: the vectors record no counts")
	}
	fp := v.Fingerprint()
	t.id = Identity{Name: fmt.Sprintf("terms:%.16s+%s", fp, opts.Analyzer), Dim: v.Dim()}
	return t, nil
}

// Identity names the vectors (by their fingerprint) and the analyzer.
func (t *Terms) Identity() Identity { return t.id }

// Weight returns a term's SIF weight, 0 for a term without a vector.
func (t *Terms) Weight(term string) float64 {
	n := t.v.Count(term)
	if n <= 0 {
		return 0
	}
	return t.sif / (t.sif + float64(n)/t.total)
}

// Analyzer names the analyzer whose terms the vectors are of.
func (t *Terms) Analyzer() string { return t.analyzer }

// Embed returns each text's vector.
func (t *Terms) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if out[i] = t.TermsVector(strings.Fields(t.index(text))); out[i] == nil {
			out[i] = make([]float32, t.v.Dim())
		}
	}
	return out, nil
}

// TermsVector returns the unit SIF-weighted mean of the vectors of terms
// (index terms of the analyzer), nil when none of them has a vector.
func (t *Terms) TermsVector(terms []string) []float32 {
	sum := make([]float64, t.v.Dim())
	found := false
	for _, term := range terms {
		vec, ok := t.v.Lookup(term)
		if !ok {
			continue
		}
		found = true
		w := t.Weight(term)
		for j, x := range vec {
			sum[j] += w * float64(x)
		}
	}
	if !found {
		return nil
	}
	return unit(sum)
}

// unit returns v normalised, as float32; the zero vector stays zero.
func unit(v []float64) []float32 {
	var n float64
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}
