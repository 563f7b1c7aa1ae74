package wordvec

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/omoide/omoide/tokenize"
)

// Learner gathers the analyzed terms of exchanges and learns vectors from
// them. Add exchanges, then call Learn. It is not safe for concurrent use.
type Learner struct {
	analyzer tokenize.Analyzer
	opts     Options // resolved

	ids    map[string]int32 // term → id, in order of first sight
	terms  []string         // id → term
	counts []int64          // id → times seen
	seq    []int32          // the term ids of every exchange, one after another
	ends   []int            // where each exchange ends in seq
	corpus hash.Hash        // SHA-256 of the analyzed exchanges (Params.Corpus)
	tokens int64
}

// NewLearner returns a Learner of vectors for the terms of a, or an error
// when opts is out of range.
func NewLearner(a tokenize.Analyzer, opts Options) (*Learner, error) {
	if a == nil {
		return nil, errors.New("wordvec: no analyzer")
	}
	o, err := opts.resolved()
	if err != nil {
		return nil, err
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return &Learner{analyzer: a, opts: o, ids: map[string]int32{}, corpus: sha256.New()}, nil
}

// Learn learns vectors from exchanges with a and opts: NewLearner, Add and
// Learner.Learn in one call.
func Learn(ctx context.Context, a tokenize.Analyzer, exchanges []Exchange, opts Options) (*Vectors, error) {
	l, err := NewLearner(a, opts)
	if err != nil {
		return nil, err
	}
	if err := l.Add(ctx, exchanges...); err != nil {
		return nil, err
	}
	return l.Learn(ctx)
}

// Exchanges returns how many exchanges have been added.
func (l *Learner) Exchanges() int { return len(l.ends) }

// Add analyzes exchanges (in parallel, with Options.Workers goroutines) and
// keeps their terms, in order.
func (l *Learner) Add(ctx context.Context, exchanges ...Exchange) error {
	indexed := make([][2]string, len(exchanges))
	workers := min(l.opts.Workers, max(1, len(exchanges)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(exchanges); i += workers {
				if i%256 == w && ctx.Err() != nil {
					return
				}
				indexed[i] = [2]string{l.analyzer.Index(exchanges[i].Message), l.analyzer.Index(exchanges[i].Reply)}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("wordvec: analyzing exchanges: %w", err)
	}
	for _, ix := range indexed {
		for k, text := range ix {
			l.corpus.Write([]byte(text))
			l.corpus.Write([]byte{byte(k)}) // 0 after the message, 1 after the reply
			for term := range strings.FieldsSeq(text) {
				id, ok := l.ids[term]
				if !ok {
					id = int32(len(l.terms))
					l.ids[term] = id
					l.terms = append(l.terms, term)
					l.counts = append(l.counts, 0)
				}
				l.counts[id]++
				l.seq = append(l.seq, id)
				l.tokens++
			}
		}
		l.ends = append(l.ends, len(l.seq))
	}
	return nil
}

// Learn learns the vectors of the terms seen at least MinCount times from
// the exchanges added. Terms that never share an exchange (or a window)
// with another such term get no vector.
func (l *Learner) Learn(ctx context.Context) (*Vectors, error) {
	o := l.opts
	vocab, remap := l.vocabulary()
	if len(vocab) < 2 {
		return nil, fmt.Errorf("wordvec: %d terms seen at least %d times in %d exchanges; need at least 2", len(vocab), o.MinCount, len(l.ends))
	}
	counts, err := l.cooccurrences(ctx, len(vocab), remap)
	if err != nil {
		return nil, err
	}
	ppmi := counts.ppmi(o.ContextSmoothing)
	counts = nil
	dim := min(o.Dim, len(vocab))
	rows, err := randomizedSVD(ctx, ppmi, dim, o)
	if err != nil {
		return nil, err
	}
	p := Params{
		Analyzer: l.analyzer.Name(), Dim: dim, MinCount: o.MinCount, Window: o.Window,
		ContextSmoothing: o.ContextSmoothing, SingularPower: o.SingularPower, Oversample: o.Oversample,
		PowerIterations: o.PowerIterations, Seed: o.Seed, Exchanges: len(l.ends), Tokens: l.tokens,
		Corpus: hex.EncodeToString(l.corpus.Sum(nil)),
	}
	terms := make([]string, len(vocab))
	seen := make([]int64, len(vocab))
	for i, id := range vocab {
		terms[i], seen[i] = l.terms[id], l.counts[id]
	}
	return newVectors(p, terms, seen, rows)
}

// vocabulary returns the ids of the terms seen at least MinCount times, most
// seen first (ties in byte order of the term), and the map from a term's id
// to its index among them (-1: none).
func (l *Learner) vocabulary() (vocab []int32, remap []int32) {
	for id, n := range l.counts {
		if n >= int64(l.opts.MinCount) {
			vocab = append(vocab, int32(id))
		}
	}
	slices.SortFunc(vocab, func(a, b int32) int {
		return cmp.Or(cmp.Compare(l.counts[b], l.counts[a]), strings.Compare(l.terms[a], l.terms[b]))
	})
	remap = make([]int32, len(l.terms))
	for i := range remap {
		remap[i] = -1
	}
	for i, id := range vocab {
		remap[id] = int32(i)
	}
	return vocab, remap
}

// cooccurrences counts the pairs of vocabulary terms: of distinct terms per
// exchange (Window 0), or of terms at most Window apart. Each row is counted
// by one goroutine from an inverted index (term → where it occurs) into a
// dense scratch row, so only the pairs seen are stored.
func (l *Learner) cooccurrences(ctx context.Context, n int, remap []int32) (*csr, error) {
	// units: the vocabulary terms of each exchange (distinct ones for
	// Window 0; in place, -1 for the others, for a window).
	units := make([]int32, 0, len(l.seq))
	unitEnds := make([]int, len(l.ends))
	start := 0
	mark := make([]bool, n)
	for u, end := range l.ends {
		from := len(units)
		for _, id := range l.seq[start:end] {
			t := remap[id]
			if l.opts.Window == 0 {
				if t >= 0 && !mark[t] {
					mark[t] = true
					units = append(units, t)
				}
			} else {
				units = append(units, t)
			}
		}
		if l.opts.Window == 0 {
			for _, t := range units[from:] {
				mark[t] = false
			}
		}
		unitEnds[u] = len(units)
		start = end
	}
	// postings[postStart[t]:postStart[t+1]]: the positions in units of t.
	postStart := make([]int, n+1)
	for _, t := range units {
		if t >= 0 {
			postStart[t+1]++
		}
	}
	for t := range n {
		postStart[t+1] += postStart[t]
	}
	postings := make([]int32, postStart[n])
	next := slices.Clone(postStart[:n])
	for pos, t := range units {
		if t >= 0 {
			postings[next[t]] = int32(pos)
			next[t]++
		}
	}
	next = nil
	// bounds returns the exchange around position pos.
	bounds := func(pos int) (int, int) {
		u, _ := slices.BinarySearch(unitEnds, pos+1)
		from := 0
		if u > 0 {
			from = unitEnds[u-1]
		}
		return from, unitEnds[u]
	}
	window := l.opts.Window
	row := func(t int, scratch []float32, touched []int32) []int32 {
		for _, pos := range postings[postStart[t]:postStart[t+1]] {
			from, to := bounds(int(pos))
			if window > 0 {
				from, to = max(from, int(pos)-window), min(to, int(pos)+window+1)
			}
			for q := from; q < to; q++ {
				c := units[q]
				if c < 0 || int(c) == t {
					continue
				}
				if scratch[c] == 0 {
					touched = append(touched, c)
				}
				scratch[c]++
			}
		}
		return touched
	}
	m, err := buildRows(ctx, n, l.opts.Workers, row)
	if err != nil {
		return nil, fmt.Errorf("wordvec: counting co-occurrences: %w", err)
	}
	return m, nil
}

// ppmi returns the positive PMI of the counts m, with the context counts
// raised to alpha: max(0, log(#(w,c)·Z / (#(w)·#(c)^alpha))), where #(w) is
// row w's sum (the counts are symmetric, so it is column w's too) and Z the
// sum of every #(c)^alpha. Entries of PMI 0 or less are dropped. m is
// reused.
func (m *csr) ppmi(alpha float64) *csr {
	sums := make([]float64, m.rows)
	for i := range m.rows {
		for _, v := range m.vals[m.start[i]:m.start[i+1]] {
			sums[i] += float64(v)
		}
	}
	logRow := make([]float64, m.rows)
	logCol := make([]float64, m.rows)
	z := 0.0
	for i, s := range sums {
		if s > 0 {
			logRow[i] = math.Log(s)
			logCol[i] = alpha * logRow[i]
			z += math.Exp(logCol[i])
		}
	}
	logZ := math.Log(z)
	out := 0
	from := 0
	for i := range m.rows {
		to := m.start[i+1]
		for k := from; k < to; k++ {
			c := m.cols[k]
			pmi := math.Log(float64(m.vals[k])) + logZ - logRow[i] - logCol[c]
			if pmi > 0 {
				m.cols[out], m.vals[out] = c, float32(pmi)
				out++
			}
		}
		from = to
		m.start[i+1] = out
	}
	m.cols, m.vals = slices.Clone(m.cols[:out]), slices.Clone(m.vals[:out]) // frees the counts
	return m
}
