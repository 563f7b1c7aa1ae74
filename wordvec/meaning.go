package wordvec

import (
	"sync"

	"github.com/omoide/omoide/embed"
)

// nearCached is how many neighbours Meaning keeps of each term it was asked
// about.
const nearCached = 16

// Meaning is what the retriever asks of the vectors
// (retriever.MeaningVectors): a set of terms' vector, and a term's nearest
// neighbours, which it remembers: Nearest scans every row. It is safe for
// concurrent use.
type Meaning struct {
	*embed.Terms
	v     *Vectors
	total float64
	near  sync.Map // term → []Neighbour, nearCached of them
}

// Meaning returns the vectors as the retriever's meaning.
func (v *Vectors) Meaning() (*Meaning, error) {
	t, err := v.Embedder()
	if err != nil {
		return nil, err
	}
	m := &Meaning{Terms: t, v: v}
	for _, c := range v.counts {
		m.total += float64(c)
	}
	return m, nil
}

// LoadMeaning reads the vectors file at path as the retriever's meaning.
func LoadMeaning(path string) (*Meaning, error) {
	v, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return v.Meaning()
}

// Near returns up to k of term's nearest neighbours with a cosine of at
// least min, nearest first, leaving out every term (term itself too) seen in
// more than maxShare of the tokens learned from (0: none left out).
func (m *Meaning) Near(term string, k int, min, maxShare float64) []string {
	if _, ok := m.v.Lookup(term); !ok || k <= 0 || m.common(term, maxShare) {
		return nil // only the vocabulary's terms are remembered
	}
	var nbs []Neighbour
	if c, ok := m.near.Load(term); ok {
		nbs = c.([]Neighbour)
	} else {
		nbs = m.v.Nearest(term, nearCached)
		m.near.Store(term, nbs)
	}
	var out []string
	for _, n := range nbs {
		if len(out) == k || float64(n.Cosine) < min {
			break
		}
		if !m.common(n.Term, maxShare) {
			out = append(out, n.Term)
		}
	}
	return out
}

// common reports whether term is seen in more than share of the tokens.
func (m *Meaning) common(term string, share float64) bool {
	return share > 0 && float64(m.v.Count(term)) > share*m.total
}
