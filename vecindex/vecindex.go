// Package vecindex is an in-memory nearest-neighbour index over quantized
// vectors, for one person's episodes: a wide first pass over ternary sign
// codes (two bit sets per vector, one for the positive and one for the
// negative components) picks a pool of candidates, and an int8 copy of each
// vector rescores the pool by cosine similarity. One scan serves every query
// vector of a retrieval.
//
// The codes are derived from a vector's Code (Quantize), the form in which a
// store keeps it beside the episode. The float vectors themselves are not
// needed at search time.
package vecindex

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// DefaultPool is how many first-pass candidates per query Search rescores
// when pool is 0. With the hash embedder's 256 dimensions, 256 candidates
// keep the exact top 20 on the evaluation suites (see docs/performance.md).
const DefaultPool = 256

// Quantize returns the code of v as a store keeps it: v scaled to unit length,
// then each component as an int8 of that length times 127/max|v_i|, followed
// by the little-endian float32 scale that turns an int8 back into a unit
// vector component (len(v)+4 bytes). A zero vector has scale 0.
func Quantize(v []float32) []byte {
	out := make([]byte, len(v)+4)
	var norm, peak float64
	for _, x := range v {
		norm += float64(x) * float64(x)
		peak = max(peak, math.Abs(float64(x)))
	}
	if norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
		return out
	}
	norm = math.Sqrt(norm)
	scale := peak / norm / 127 // unit component = int8 * scale
	for i, x := range v {
		out[i] = byte(int8(math.Round(float64(x) / norm / scale)))
	}
	binary.LittleEndian.PutUint32(out[len(v):], math.Float32bits(float32(scale)))
	return out
}

// Attrs are the filterable attributes of an entry.
type Attrs struct {
	OccurredAt  int64 // Unix seconds
	Kind        int
	State       int
	Sensitivity int
}

// Filter keeps the entries a search may return. The zero Filter keeps all.
type Filter struct {
	// Since and Until bound OccurredAt to [Since, Until) when non-zero.
	Since, Until int64
	// Kinds and States, when non-empty, list the values allowed.
	Kinds, States []int
	// MaxSensitivity, when HasMaxSensitivity, is the highest allowed.
	MaxSensitivity    int
	HasMaxSensitivity bool
}

// Keeps reports whether f keeps an entry of attributes a.
func (f *Filter) Keeps(a Attrs) bool { return f.keeps(&a) }

func (f *Filter) keeps(a *Attrs) bool {
	if f.Since != 0 && a.OccurredAt < f.Since || f.Until != 0 && a.OccurredAt >= f.Until {
		return false
	}
	if f.HasMaxSensitivity && a.Sensitivity > f.MaxSensitivity {
		return false
	}
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, a.Kind) {
		return false
	}
	return len(f.States) == 0 || slices.Contains(f.States, a.State)
}

// Result is one neighbour: the entry's id and its cosine distance (1 − cosine
// similarity, from the int8 codes) to the query.
type Result struct {
	ID       int64
	Distance float64
}

// Index holds quantized vectors of one dimension. Its zero value is not
// usable; make one with New. An Index is not safe for concurrent use when one
// of the goroutines calls Add or Remove; concurrent Searches are safe.
type Index struct {
	dim, words int
	ids        []int64
	attrs      []Attrs
	pos, neg   []uint64 // words per entry
	q8         []int8   // dim per entry
	scale      []float32
	byID       []int32   // the entries in ascending order of id (Lookup)
	byTime     []int32   // the entries in order of (OccurredAt, id) (Neighbors)
	scratch    sync.Pool // *scratch, for Search
}

// New returns an empty index of dim-dimensional vectors.
func New(dim int) (*Index, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("vecindex: dimension %d is not positive", dim)
	}
	x := &Index{dim: dim, words: (dim + 63) / 64}
	x.scratch.New = func() any { return new(scratch) }
	return x, nil
}

// Grow makes room for n more entries without reallocating.
func (x *Index) Grow(n int) {
	if n <= 0 {
		return
	}
	x.ids = slices.Grow(x.ids, n)
	x.attrs = slices.Grow(x.attrs, n)
	x.scale = slices.Grow(x.scale, n)
	x.pos = slices.Grow(x.pos, n*x.words)
	x.neg = slices.Grow(x.neg, n*x.words)
	x.q8 = slices.Grow(x.q8, n*x.dim)
	x.byID = slices.Grow(x.byID, n)
	x.byTime = slices.Grow(x.byTime, n)
}

// place inserts entry e into order, sorted by cmp.
func (x *Index) place(order []int32, e int32, cmp func(f, g int32) int) []int32 {
	if n := len(order); n == 0 || cmp(order[n-1], e) < 0 {
		return append(order, e)
	}
	i, _ := slices.BinarySearchFunc(order, e, cmp)
	return slices.Insert(order, i, e)
}

// timeOrder orders entries by (OccurredAt, id).
func (x *Index) timeOrder(f, g int32) int {
	return cmp.Or(cmp.Compare(x.attrs[f].OccurredAt, x.attrs[g].OccurredAt), cmp.Compare(x.ids[f], x.ids[g]))
}

// Dim returns the dimension of the vectors.
func (x *Index) Dim() int { return x.dim }

// Len returns the number of entries.
func (x *Index) Len() int { return len(x.ids) }

// Bytes returns about how much memory the entries take.
func (x *Index) Bytes() int {
	return cap(x.ids)*8 + cap(x.attrs)*32 + (cap(x.pos)+cap(x.neg))*8 + cap(x.q8) + cap(x.scale)*4 + (cap(x.byID)+cap(x.byTime))*4
}

// ErrCode is returned by Add for a code of the wrong length.
var ErrCode = errors.New("vecindex: code length does not match the dimension")

// Add appends an entry with a code made by Quantize.
func (x *Index) Add(id int64, a Attrs, code []byte) error {
	if len(code) != x.dim+4 {
		return fmt.Errorf("%w: %d bytes for dimension %d", ErrCode, len(code), x.dim)
	}
	e := int32(len(x.ids))
	x.ids = append(x.ids, id)
	x.attrs = append(x.attrs, a)
	// Ids mostly come in ascending order (a store gives them so), and times
	// too (a store loads a person in time order, and most episodes are
	// added after the others): the entry then goes at the end of each order.
	x.byID = x.place(x.byID, e, func(f, g int32) int { return cmp.Compare(x.ids[f], x.ids[g]) })
	x.byTime = x.place(x.byTime, e, x.timeOrder)
	x.scale = append(x.scale, math.Float32frombits(binary.LittleEndian.Uint32(code[x.dim:])))
	n := len(x.pos)
	x.pos = append(x.pos, make([]uint64, x.words)...)
	x.neg = append(x.neg, make([]uint64, x.words)...)
	for i := range x.dim {
		c := int8(code[i])
		x.q8 = append(x.q8, c)
		switch {
		case c > 0:
			x.pos[n+i/64] |= 1 << (i % 64)
		case c < 0:
			x.neg[n+i/64] |= 1 << (i % 64)
		}
	}
	return nil
}

// Remove deletes the entries with the given ids and reports how many it
// found. It costs a pass over the index.
func (x *Index) Remove(ids ...int64) int {
	if len(ids) == 0 {
		return 0
	}
	drop := slices.Clone(ids)
	slices.Sort(drop)
	moved := make([]int32, len(x.ids)) // an entry's new place, -1 when removed
	j := 0
	for i, id := range x.ids {
		if _, found := slices.BinarySearch(drop, id); found {
			moved[i] = -1
			continue
		}
		moved[i] = int32(j)
		if i != j {
			x.ids[j], x.attrs[j], x.scale[j] = x.ids[i], x.attrs[i], x.scale[i]
			copy(x.pos[j*x.words:(j+1)*x.words], x.pos[i*x.words:(i+1)*x.words])
			copy(x.neg[j*x.words:(j+1)*x.words], x.neg[i*x.words:(i+1)*x.words])
			copy(x.q8[j*x.dim:(j+1)*x.dim], x.q8[i*x.dim:(i+1)*x.dim])
		}
		j++
	}
	removed := len(x.ids) - j
	x.ids, x.attrs, x.scale = x.ids[:j], x.attrs[:j], x.scale[:j]
	x.pos, x.neg, x.q8 = x.pos[:j*x.words], x.neg[:j*x.words], x.q8[:j*x.dim]
	// The entries left keep their order in both orders.
	for _, order := range []*[]int32{&x.byID, &x.byTime} {
		kept := (*order)[:0]
		for _, e := range *order {
			if m := moved[e]; m >= 0 {
				kept = append(kept, m)
			}
		}
		*order = kept
	}
	return removed
}

// Lookup returns the attributes of the entry with id, and whether the index
// holds one.
func (x *Index) Lookup(id int64) (Attrs, bool) {
	e, ok := x.entry(id)
	if !ok {
		return Attrs{}, false
	}
	return x.attrs[e], true
}

// Neighbors returns the ids of the entries just before and just after the
// entry with id in order of (OccurredAt, id), 0 where there is none, and
// whether the index holds id.
func (x *Index) Neighbors(id int64) (prev, next int64, ok bool) {
	e, ok := x.entry(id)
	if !ok {
		return 0, 0, false
	}
	i, _ := slices.BinarySearchFunc(x.byTime, e, x.timeOrder)
	if i > 0 {
		prev = x.ids[x.byTime[i-1]]
	}
	if i+1 < len(x.byTime) {
		next = x.ids[x.byTime[i+1]]
	}
	return prev, next, true
}

// entry returns the entry that holds id.
func (x *Index) entry(id int64) (int32, bool) {
	i, found := slices.BinarySearchFunc(x.byID, id, func(e int32, id int64) int { return cmp.Compare(x.ids[e], id) })
	if !found {
		return 0, false
	}
	return x.byID[i], true
}

// query is one query vector prepared for the scan.
type query struct {
	unit     []float32 // the vector at unit length
	pos, neg []uint64
	pool     int     // how many entries to rescore
	picked   []int32 // the entries picked for rescoring, in entry order
}

// filteredOut is the score of an entry the filter drops: below every real
// score (at least −dim).
const filteredOut = math.MinInt32

// pick keeps the pool best entries of scores (one per entry, the earlier
// entry first among equal scores), given counts, the number of entries of
// each score from −dim to dim.
func (q *query) pick(scores []int32, counts []int32, dim int) {
	// The lowest score that enters the pool, and how many of its entries do.
	need, floor, atFloor := q.pool, int32(-dim), 0
	for s := len(counts) - 1; s >= 0; s-- {
		c := int(counts[s])
		if c >= need {
			floor, atFloor = int32(s-dim), need
			break
		}
		need -= c
		floor, atFloor = int32(s-dim), c
	}
	q.picked = make([]int32, 0, q.pool)
	for i, s := range scores {
		switch {
		case s > floor:
			q.picked = append(q.picked, int32(i))
		case s == floor && atFloor > 0:
			q.picked = append(q.picked, int32(i))
			atFloor--
		}
	}
}

// scratch holds a search's per-entry scores and its score counts, reused
// across searches.
type scratch struct {
	s []int32
	c []int32
}

func (b *scratch) scores(n int) []int32 {
	if cap(b.s) < n {
		b.s = make([]int32, n)
	}
	return b.s[:n]
}

func (b *scratch) counts(n int) []int32 {
	if cap(b.c) < n {
		b.c = make([]int32, n)
	}
	b.c = b.c[:n]
	clear(b.c)
	return b.c
}

// Search returns, for each query vector, up to k entries that pass f, nearest
// first by cosine distance (ties by id). One pass over the codes scores every
// query by the agreement of signs (Σ over components where both are non-zero
// of +1 when the signs agree and −1 when not); the best pool entries of each
// query (0 means DefaultPool, and never fewer than k) are rescored with the
// int8 codes. A zero query vector returns no results.
func (x *Index) Search(qs [][]float32, k int, f Filter, pool int) ([][]Result, error) {
	out := make([][]Result, len(qs))
	if k <= 0 || len(x.ids) == 0 {
		return out, nil
	}
	if pool <= 0 {
		pool = DefaultPool
	}
	pool = max(pool, k)
	prepared := make([]*query, 0, len(qs))
	slot := make([]int, 0, len(qs))
	for i, v := range qs {
		if len(v) != x.dim {
			return nil, fmt.Errorf("vecindex: query %d has dimension %d, want %d", i, len(v), x.dim)
		}
		q := x.prepare(v, pool)
		if q == nil {
			continue
		}
		prepared = append(prepared, q)
		slot = append(slot, i)
	}
	if len(prepared) == 0 {
		return out, nil
	}
	// One pass scores every entry for every query and counts the scores;
	// the counts give each query's lowest score that enters its pool, and a
	// second pass over the scores picks the pool: the best pool entries by
	// score, the earlier entry first among equal scores.
	n, w, span := len(x.ids), x.words, 2*x.dim+1
	buf := x.scratch.Get().(*scratch)
	defer x.scratch.Put(buf)
	scores := buf.scores(n * len(prepared))
	counts := buf.counts(span * len(prepared))
	for i := range n {
		if !f.keeps(&x.attrs[i]) {
			for j := range prepared {
				scores[j*n+i] = filteredOut
			}
			continue
		}
		vp, vn := x.pos[i*w:(i+1)*w], x.neg[i*w:(i+1)*w]
		for j, q := range prepared {
			var s int
			if w == 4 { // 256 dimensions (the hash embedder's): unrolled, no bounds checks
				s = signScore4((*[4]uint64)(q.pos), (*[4]uint64)(q.neg), (*[4]uint64)(vp), (*[4]uint64)(vn))
			} else {
				s = signScore(q.pos, q.neg, vp, vn)
			}
			scores[j*n+i] = int32(s)
			counts[j*span+s+x.dim]++
		}
	}
	for j, q := range prepared {
		q.pick(scores[j*n:(j+1)*n], counts[j*span:(j+1)*span], x.dim)
	}
	for n, q := range prepared {
		res := make([]Result, len(q.picked))
		for j, e := range q.picked {
			res[j] = Result{ID: x.ids[e], Distance: 1 - x.cosine(q.unit, int(e))}
		}
		out[slot[n]] = nearest(res, k)
	}
	return out, nil
}

// nearest returns the k nearest of res, nearest first, ties by id (res is
// reordered): the k are kept in a heap with the farthest on top, and only
// they are sorted.
func nearest(res []Result, k int) []Result {
	if k < len(res) {
		h := res[:k]
		for i := k/2 - 1; i >= 0; i-- {
			siftFarthest(h, i)
		}
		for _, r := range res[k:] {
			if closer(r, h[0]) {
				h[0] = r
				siftFarthest(h, 0)
			}
		}
		res = h
	}
	slices.SortFunc(res, func(a, b Result) int {
		if closer(a, b) {
			return -1
		}
		if closer(b, a) {
			return 1
		}
		return 0
	})
	return res
}

// closer orders results by distance, then id.
func closer(a, b Result) bool {
	return a.Distance < b.Distance || a.Distance == b.Distance && a.ID < b.ID
}

// siftFarthest restores h's heap order (the farthest on top) below i.
func siftFarthest(h []Result, i int) {
	for {
		m, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && closer(h[m], h[l]) {
			m = l
		}
		if r < len(h) && closer(h[m], h[r]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// signScore is the agreement of signs of a query (qp, qn) and an entry (vp,
// vn). A code's positive and negative sets are disjoint, so the agreeing
// components are one union and the disagreeing ones another: two population
// counts a word instead of four.
func signScore(qp, qn, vp, vn []uint64) int {
	s := 0
	qp, qn = qp[:len(vp)], qn[:len(vp)]
	for k := range vp {
		s += bits.OnesCount64(qp[k]&vp[k]|qn[k]&vn[k]) - bits.OnesCount64(qp[k]&vn[k]|qn[k]&vp[k])
	}
	return s
}

// signScore4 is signScore of four words, unrolled.
func signScore4(qp, qn, vp, vn *[4]uint64) int {
	return bits.OnesCount64(qp[0]&vp[0]|qn[0]&vn[0]) - bits.OnesCount64(qp[0]&vn[0]|qn[0]&vp[0]) +
		bits.OnesCount64(qp[1]&vp[1]|qn[1]&vn[1]) - bits.OnesCount64(qp[1]&vn[1]|qn[1]&vp[1]) +
		bits.OnesCount64(qp[2]&vp[2]|qn[2]&vn[2]) - bits.OnesCount64(qp[2]&vn[2]|qn[2]&vp[2]) +
		bits.OnesCount64(qp[3]&vp[3]|qn[3]&vn[3]) - bits.OnesCount64(qp[3]&vn[3]|qn[3]&vp[3])
}

func (x *Index) prepare(v []float32, pool int) *query {
	var norm float64
	for _, c := range v {
		norm += float64(c) * float64(c)
	}
	if norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
		return nil
	}
	norm = math.Sqrt(norm)
	q := &query{unit: make([]float32, x.dim), pos: make([]uint64, x.words), neg: make([]uint64, x.words)}
	q.pool = pool
	for i, c := range v {
		q.unit[i] = float32(float64(c) / norm)
		switch {
		case c > 0:
			q.pos[i/64] |= 1 << (i % 64)
		case c < 0:
			q.neg[i/64] |= 1 << (i % 64)
		}
	}
	return q
}

// cosine is the similarity of a unit query to entry i from its int8 code.
func (x *Index) cosine(unit []float32, i int) float64 {
	code := x.q8[i*x.dim : (i+1)*x.dim]
	unit = unit[:len(code)]
	// Four sums, so that the additions need not wait for one another.
	var d0, d1, d2, d3 float32
	j := 0
	for ; j+4 <= len(code); j += 4 {
		d0 += unit[j] * float32(code[j])
		d1 += unit[j+1] * float32(code[j+1])
		d2 += unit[j+2] * float32(code[j+2])
		d3 += unit[j+3] * float32(code[j+3])
	}
	for ; j < len(code); j++ {
		d0 += unit[j] * float32(code[j])
	}
	return float64((d0 + d1 + d2 + d3) * x.scale[i])
}
