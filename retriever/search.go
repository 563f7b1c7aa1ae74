package retriever

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/rerank"
)

// armResults are the ranked hits of each search: vector and BM25 per query.
type armResults struct {
	knn, bm25 [][]episode.Match
	window    [][]episode.Match // vector and BM25 for Q1 inside the message's time window
	expanded  []episode.Match   // BM25 of Q1's terms' learned neighbours (Options.Expansion)
}

// each calls f with each ranked list in fusion order: vector Q1, vector Q2,
// BM25 Q1, BM25 Q2, then the time window's vector and BM25 lists, then the
// expanded BM25 list. query is the list's query (0 for Q1); the window's
// and the expanded lists are Q1's.
func (a armResults) each(f func(name string, query int, l rerank.List, hits []episode.Match)) {
	for i, hs := range a.knn {
		f(fmt.Sprintf("vector q%d", i+1), i, rerank.List{IDs: ids(hs), Vector: true}, hs)
	}
	for i, hs := range a.bm25 {
		f(fmt.Sprintf("bm25 q%d", i+1), i, rerank.List{IDs: ids(hs)}, hs)
	}
	if len(a.window) == 2 {
		f("vector q1 in the time window", 0, rerank.List{IDs: ids(a.window[0]), Vector: true}, a.window[0])
		f("bm25 q1 in the time window", 0, rerank.List{IDs: ids(a.window[1])}, a.window[1])
	}
	if a.expanded != nil {
		f("bm25 of learned neighbours", 0, rerank.List{IDs: ids(a.expanded), Expanded: true}, a.expanded)
	}
}

// lists returns the ranked lists in fusion order (each).
func (a armResults) lists() []rerank.List {
	out := make([]rerank.List, 0, len(a.knn)+len(a.bm25)+len(a.window)+1)
	a.each(func(_ string, _ int, l rerank.List, _ []episode.Match) { out = append(out, l) })
	return out
}

// expansion returns the nearest learned neighbours of the message's terms
// (Q1's BM25 terms) that the message does not hold, for the expanded BM25
// search; nil when Options.Expansion is off.
func (rt *retrieval) expansion() []string {
	x := rt.opts.Expansion
	if x.Neighbours <= 0 || rt.opts.Meaning == nil || len(rt.terms) == 0 {
		return nil
	}
	var out []string
	for _, t := range rt.terms[0] {
		for _, n := range rt.opts.Meaning.Near(t, x.Neighbours, x.MinCosine, x.MaxTermShare) {
			if !slices.Contains(rt.terms[0], n) && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// cosine returns the cosine similarity of episode id to Q1 (the message
// alone) when the Q1 vector search found it, else 0.
func (a armResults) cosine(id int64) float64 {
	if len(a.knn) == 0 {
		return 0
	}
	for _, h := range a.knn[0] {
		if h.ID == id {
			return 1 - h.Score
		}
	}
	return 0
}

func ids(hits []episode.Match) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// search runs KNN and BM25 for every query concurrently. BM25 starts at once;
// KNN after the one batched embedding call. When the embedder fails and
// Vector.FallbackBM25 is set, the retrieval goes on with BM25 alone and the
// trace says why; it fails only when nothing can run.
func (rt *retrieval) search(ctx context.Context) error {
	n := len(rt.q.texts)
	tr, a := rt.tr, &rt.arms
	knnErrs, bm25Errs, winErrs := make([]error, n), make([]error, n), make([]error, 3)
	if rt.window != nil {
		a.window = make([][]episode.Match, 2)
	}
	tr.KNNHits, tr.BM25Hits = make([]int, n), make([]int, n)
	var mu sync.Mutex
	longest := func(d *time.Duration, since time.Time) {
		el := time.Since(since)
		mu.Lock()
		*d = max(*d, el)
		mu.Unlock()
	}
	var bm25 []func() // the BM25 queries, the longest first
	if k := rt.opts.BM25.K; k > 0 {
		a.bm25 = make([][]episode.Match, n)
		for i := n - 1; i >= 0; i-- {
			bm25 = append(bm25, func() {
				t := time.Now()
				a.bm25[i], bm25Errs[i] = rt.store.BM25(ctx, rt.user, rt.terms[i], k, rt.filter)
				longest(&tr.BM25, t)
				tr.BM25Hits[i] = len(a.bm25[i])
			})
		}
		if rt.window != nil {
			bm25 = append(bm25, func() {
				t := time.Now()
				a.window[1], winErrs[1] = rt.store.BM25(ctx, rt.user, rt.terms[0], k, *rt.window)
				longest(&tr.BM25, t)
			})
		}
		if terms := rt.expansion(); len(terms) > 0 {
			bm25 = append(bm25, func() {
				t := time.Now()
				a.expanded, winErrs[2] = rt.store.BM25(ctx, rt.user, terms, k, rt.filter)
				if a.expanded == nil {
					a.expanded = []episode.Match{}
				}
				longest(&tr.BM25, t)
			})
		}
	}
	// The BM25 queries are cgo calls, and a goroutine in a cgo call keeps
	// its processor (P) until the runtime's monitor takes it back: with a
	// goroutine for each search, the third of three on two processors
	// started only when the vector scan ended. So up to GOMAXPROCS−1
	// helpers take the BM25 queries from a shared list, one goroutine
	// embeds and searches the vectors (in memory, or by vec0's exact scans
	// for a small person or a store that scans exactly: the store decides),
	// and this one takes the BM25 queries left (docs/performance.md).
	var next atomic.Int32
	takeBM25 := func() {
		for i := int(next.Add(1)) - 1; i < len(bm25); i = int(next.Add(1)) - 1 {
			bm25[i]()
		}
	}
	var wg sync.WaitGroup
	for range min(len(bm25), max(1, runtime.GOMAXPROCS(0)-1)) {
		wg.Go(takeBM25)
	}
	var vecErr error
	if k := rt.opts.Vector.K; k > 0 && rt.opts.Rank.Fusion.VectorWeight(rt.lexical) > 0 {
		wg.Go(func() {
			vecs, err := rt.embed(ctx)
			switch {
			case err != nil && rt.opts.Vector.FallbackBM25 && rt.bm25Any && ctx.Err() == nil:
				tr.Degraded = err.Error()
			case err != nil:
				vecErr = fmt.Errorf("retriever: embed queries: %w", err)
			default:
				t := time.Now()
				a.knn, knnErrs[0] = rt.store.Nearest(ctx, rt.user, vecs, k, rt.filter)
				for i := range a.knn {
					tr.KNNHits[i] = len(a.knn[i])
				}
				if rt.window != nil {
					var w [][]episode.Match
					w, winErrs[0] = rt.store.Nearest(ctx, rt.user, vecs[:1], k, *rt.window)
					if len(w) == 1 {
						a.window[0] = w[0]
					}
				}
				longest(&tr.KNN, t)
			}
		})
	}
	takeBM25()
	wg.Wait()
	if vecErr != nil {
		return vecErr
	}
	if err := errors.Join(slices.Concat(knnErrs, bm25Errs, winErrs)...); err != nil {
		return fmt.Errorf("retriever: %w", err)
	}
	return nil
}

// embed embeds the query texts in one call, bounded by Vector.Timeout.
func (rt *retrieval) embed(ctx context.Context) ([][]float32, error) {
	t := time.Now()
	defer func() { rt.tr.Embed = time.Since(t) }()
	if d := rt.opts.Vector.Timeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	texts := rt.q.texts
	vecs, err := rt.store.Embedder().Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedder returned %d vectors for %d queries", len(vecs), len(texts))
	}
	return vecs, err
}

// fuse fuses the arms' lists into the candidates (rerank.Fusion).
func (rt *retrieval) fuse() {
	t := time.Now()
	rt.fused = rt.opts.Rank.Fusion.Fuse(rt.arms.lists(), rt.lexical)
	rt.tr.Fuse = time.Since(t)
	rt.tr.Candidates = len(rt.fused)
}
