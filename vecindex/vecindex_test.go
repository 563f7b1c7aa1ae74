package vecindex

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sparse returns a vector like the hash embedder's: a few signed non-zero
// components, some of them shared with the other vectors of its topic.
func sparse(rng *rand.Rand, dim, nnz int, topic []int) []float32 {
	v := make([]float32, dim)
	for _, i := range topic {
		v[i] += 1
	}
	for range nnz {
		i := rng.IntN(dim)
		if rng.IntN(2) == 0 {
			v[i] += 1
		} else {
			v[i] -= 1
		}
	}
	return v
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func TestQuantizeKeepsCosine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, _ := New(64)
	var vecs [][]float32
	for i := range 200 {
		v := make([]float32, 64)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		vecs = append(vecs, v)
		if err := x.Add(int64(i), Attrs{}, Quantize(v)); err != nil {
			t.Fatal(err)
		}
	}
	q := vecs[0]
	unit := x.prepare(q, 1).unit
	for i, v := range vecs {
		got, want := x.cosine(unit, i), cosine(q, v)
		if math.Abs(got-want) > 0.02 {
			t.Fatalf("entry %d: int8 cosine %.4f, float %.4f", i, got, want)
		}
	}
	if z := Quantize(make([]float32, 8)); len(z) != 12 || slices.ContainsFunc(z, func(b byte) bool { return b != 0 }) {
		t.Fatalf("zero vector code %v", z)
	}
}

// TestSearchRecall compares Search with exact float cosine KNN on clustered
// sparse vectors and dense ones: the pool must keep nearly all of the exact
// top k.
func TestSearchRecall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dense bool
	}{{"sparse", false}, {"dense", true}} {
		t.Run(tc.name, func(t *testing.T) {
			const dim, n, k = 256, 20000, 20
			rng := rand.New(rand.NewPCG(2, 3))
			topics := make([][]int, 50)
			for i := range topics {
				for range 6 {
					topics[i] = append(topics[i], rng.IntN(dim))
				}
			}
			centres := make([][]float32, 500)
			for i := range centres {
				centres[i] = make([]float32, dim)
				for j := range dim {
					centres[i][j] = float32(rng.NormFloat64())
				}
			}
			gen := func() []float32 {
				if tc.dense {
					// A dense embedding: one of the clusters' centres plus noise.
					c := centres[rng.IntN(len(centres))]
					v := make([]float32, dim)
					for j := range v {
						v[j] = c[j] + 0.5*float32(rng.NormFloat64())
					}
					return v
				}
				return sparse(rng, dim, 12, topics[rng.IntN(len(topics))])
			}
			x, _ := New(dim)
			vecs := make([][]float32, n)
			for i := range n {
				vecs[i] = gen()
				x.Add(int64(i+1), Attrs{}, Quantize(vecs[i]))
			}
			hits, total := 0, 0
			var qs [][]float32
			for range 50 {
				qs = append(qs, gen())
			}
			got, err := x.Search(qs, k, Filter{}, 0)
			if err != nil {
				t.Fatal(err)
			}
			for qi, q := range qs {
				type sc struct {
					id  int64
					cos float64
				}
				exact := make([]sc, n)
				for i, v := range vecs {
					exact[i] = sc{int64(i + 1), cosine(q, v)}
				}
				slices.SortFunc(exact, func(a, b sc) int { return cmp.Or(cmp.Compare(b.cos, a.cos), cmp.Compare(a.id, b.id)) })
				// Count exact neighbours found, allowing for ties at the k-th similarity.
				kth := exact[k-1].cos
				for _, r := range got[qi] {
					if cosine(q, vecs[r.ID-1]) >= kth-0.01 {
						hits++
					}
				}
				total += k
				if len(got[qi]) != k {
					t.Fatalf("query %d: %d results", qi, len(got[qi]))
				}
				for j := 1; j < len(got[qi]); j++ {
					if got[qi][j].Distance < got[qi][j-1].Distance {
						t.Fatalf("query %d: results out of order: %v", qi, got[qi])
					}
				}
			}
			if recall := float64(hits) / float64(total); recall < 0.97 {
				t.Errorf("recall@%d against exact cosine = %.3f, want >= 0.97", k, recall)
			} else {
				t.Logf("recall@%d against exact cosine = %.3f", k, recall)
			}
		})
	}
}

func TestSearchFilterAndRemove(t *testing.T) {
	x, _ := New(8)
	v := []float32{1, -1, 0, 0, 1, 0, 0, 0}
	for i := range 10 {
		w := slices.Clone(v)
		w[2] = float32(i) / 10 // entry 0 is the nearest
		x.Add(int64(i+1), Attrs{OccurredAt: int64(100 * i), Kind: i % 2, State: i % 3, Sensitivity: i % 4}, Quantize(w))
	}
	ids := func(f Filter) []int64 {
		res, err := x.Search([][]float32{v}, 20, f, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, r := range res[0] {
			out = append(out, r.ID)
		}
		slices.Sort(out)
		return out
	}
	cases := []struct {
		name string
		f    Filter
		want []int64
	}{
		{"all", Filter{}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"window", Filter{Since: 200, Until: 500}, []int64{3, 4, 5}},
		{"kind", Filter{Kinds: []int{1}}, []int64{2, 4, 6, 8, 10}},
		{"state", Filter{States: []int{0, 2}}, []int64{1, 3, 4, 6, 7, 9, 10}},
		{"sensitivity", Filter{HasMaxSensitivity: true, MaxSensitivity: 0}, []int64{1, 5, 9}},
	}
	for _, c := range cases {
		if got := ids(c.f); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	res, _ := x.Search([][]float32{v, make([]float32, 8)}, 1, Filter{}, 0)
	if len(res) != 2 || len(res[0]) != 1 || res[0][0].ID != 1 || len(res[1]) != 0 {
		t.Fatalf("nearest / zero query: %v", res)
	}
	if n := x.Remove(1, 5, 99); n != 2 || x.Len() != 8 {
		t.Fatalf("removed %d, len %d", n, x.Len())
	}
	if got := ids(Filter{}); !slices.Equal(got, []int64{2, 3, 4, 6, 7, 8, 9, 10}) {
		t.Fatalf("after remove: %v", got)
	}
	res, _ = x.Search([][]float32{v}, 1, Filter{}, 0)
	if res[0][0].ID != 2 {
		t.Fatalf("nearest after remove: %v", res)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := New(0); err == nil {
		t.Fatal("New(0) succeeded")
	}
	// No embedder is too wide: a score of 65,536 dimensions fits.
	wide, err := New(1 << 16)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float32, 1<<16)
	for i := range v {
		v[i] = 1
	}
	wide.Add(1, Attrs{}, Quantize(v))
	if res, err := wide.Search([][]float32{v}, 1, Filter{}, 0); err != nil || len(res[0]) != 1 || res[0][0].Distance > 1e-3 {
		t.Fatalf("search at 65,536 dimensions: %v, %v", res, err)
	}
	x, _ := New(4)
	if err := x.Add(1, Attrs{}, make([]byte, 7)); err == nil {
		t.Fatal("short code accepted")
	}
	x.Add(1, Attrs{}, Quantize([]float32{1, 0, 0, 0}))
	if _, err := x.Search([][]float32{{1, 0}}, 1, Filter{}, 0); err == nil {
		t.Fatal("query of the wrong dimension accepted")
	}
}

func BenchmarkSearch100k(b *testing.B) { benchmarkSearch(b, 100000) }

func BenchmarkSearch10k(b *testing.B) { benchmarkSearch(b, 10000) }

// benchmarkSearch times a retrieval's search (two queries) over n entries.
func benchmarkSearch(b *testing.B, n int) {
	const dim = 256
	rng := rand.New(rand.NewPCG(4, 5))
	x, _ := New(dim)
	for i := range n {
		x.Add(int64(i), Attrs{OccurredAt: int64(i)}, Quantize(sparse(rng, dim, 30, nil)))
	}
	qs := [][]float32{sparse(rng, dim, 30, nil), sparse(rng, dim, 60, nil)}
	b.ReportAllocs()
	for b.Loop() {
		x.Search(qs, 20, Filter{Since: 1}, 0)
	}
}

// TestPoolIsTheBestBySignScore checks the first pass against its definition,
// computed here entry by entry: the pool best entries by sign score, the
// earlier entry first among equal scores, filtered entries never. Eight
// dimensions make many equal scores, so the tie rule decides most pools.
func TestPoolIsTheBestBySignScore(t *testing.T) {
	const dim = 8
	rng := rand.New(rand.NewPCG(7, 7))
	x, _ := New(dim)
	var codes [][]int8
	for i := range 500 {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.IntN(5) - 2)
		}
		code := Quantize(v)
		c := make([]int8, dim)
		for j := range c {
			c[j] = int8(code[j])
		}
		codes = append(codes, c)
		x.Add(int64(1000+i), Attrs{OccurredAt: int64(i % 7)}, code)
	}
	sign := func(f float32) int { return cmp.Compare(f, 0) }
	for _, pool := range []int{1, 5, 37, 200, 499, 500, 800} {
		for trial := range 20 {
			q := make([]float32, dim)
			for j := range q {
				q[j] = float32(rng.IntN(3) - 1)
			}
			f := Filter{Since: int64(trial % 3)}
			type scored struct{ score, entry int }
			var want []scored
			for i, c := range codes {
				if !f.keeps(&x.attrs[i]) {
					continue
				}
				s := 0
				for j := range dim {
					if qs, cs := sign(q[j]), cmp.Compare(c[j], 0); qs != 0 && cs != 0 {
						s += qs * cs
					}
				}
				want = append(want, scored{s, i})
			}
			slices.SortStableFunc(want, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
			want = want[:min(pool, len(want))]
			entries := make([]int32, len(want))
			for i, w := range want {
				entries[i] = int32(w.entry)
			}
			slices.Sort(entries)
			p := x.prepare(q, pool)
			if p == nil {
				continue
			}
			got, err := x.Search([][]float32{q}, pool, f, pool)
			if err != nil {
				t.Fatal(err)
			}
			if len(got[0]) != len(entries) {
				t.Fatalf("pool %d, trial %d: %d results, want %d", pool, trial, len(got[0]), len(entries))
			}
			ids := make([]int32, len(got[0]))
			for i, r := range got[0] {
				ids[i] = int32(r.ID - 1000)
			}
			slices.Sort(ids)
			if !slices.Equal(ids, entries) {
				t.Fatalf("pool %d, trial %d: picked %v, want %v", pool, trial, ids, entries)
			}
		}
	}
}

// TestLookup finds every entry's attributes by id, whatever order the ids
// came in, and none of an id never added or removed since.
func TestLookup(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x, _ := New(8)
	ids := rng.Perm(300)[:200] // out of order, with gaps
	for i := range ids {
		if i%50 == 0 { // runs in ascending order too
			slices.Sort(ids[i : i+10])
		}
	}
	for _, id := range ids {
		x.Add(int64(id), Attrs{OccurredAt: int64(id * 7)}, Quantize([]float32{1, 0, 0, 0, 0, 0, 0, 1}))
	}
	check := func(gone map[int]bool) {
		t.Helper()
		for id := range 300 {
			a, ok := x.Lookup(int64(id))
			want := slices.Contains(ids, id) && !gone[id]
			if ok != want || ok && a.OccurredAt != int64(id*7) {
				t.Fatalf("Lookup(%d) = %v, %v; want held %v", id, a, ok, want)
			}
		}
	}
	check(nil)
	gone := map[int]bool{}
	for _, id := range ids[:60] {
		gone[id] = true
		x.Remove(int64(id))
	}
	check(gone)
	f := Filter{Since: 700}
	if a, _ := x.Lookup(int64(ids[100])); f.Keeps(a) != (a.OccurredAt >= 700) {
		t.Errorf("Keeps(%v) with Since 700", a)
	}
}

// TestNeighbors: each entry's neighbours in order of (OccurredAt, id), as a
// sort of all entries gives them, with times out of order and tied, before
// and after a removal.
func TestNeighbors(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x, _ := New(8)
	at := map[int64]int64{}
	for _, id := range rng.Perm(400)[:250] {
		at[int64(id)] = int64(rng.IntN(60)) // many equal times
		if id%3 == 0 {
			at[int64(id)] = int64(1000 + id) // and a run in order
		}
		x.Add(int64(id), Attrs{OccurredAt: at[int64(id)]}, Quantize([]float32{1, 0, 0, 0, 0, 0, 0, 1}))
	}
	check := func() {
		t.Helper()
		var ids []int64
		for id := range at {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(a, b int64) int { return cmp.Or(cmp.Compare(at[a], at[b]), cmp.Compare(a, b)) })
		for i, id := range ids {
			var prev, next int64
			if i > 0 {
				prev = ids[i-1]
			}
			if i+1 < len(ids) {
				next = ids[i+1]
			}
			if p, n, ok := x.Neighbors(id); !ok || p != prev || n != next {
				t.Fatalf("Neighbors(%d) = %d, %d, %v; want %d, %d", id, p, n, ok, prev, next)
			}
		}
		if _, _, ok := x.Neighbors(999); ok {
			t.Fatal("Neighbors of an id never added")
		}
	}
	check()
	for id := range at {
		if id%4 == 1 {
			x.Remove(id)
			delete(at, id)
		}
	}
	check()
}

// TestNearestIsTheSortedHead: the k nearest, picked through a heap, are the
// first k of all the results sorted by distance and id, equal distances
// included.
func TestNearestIsTheSortedHead(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{0, 1, 5, 64, 256} {
		for _, k := range []int{1, 2, 20, 63, 256, 300} {
			res := make([]Result, n)
			for i := range res {
				res[i] = Result{ID: int64(rng.IntN(1000)), Distance: float64(rng.IntN(12)) / 10}
			}
			want := slices.Clone(res)
			slices.SortFunc(want, func(a, b Result) int {
				return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.ID, b.ID))
			})
			want = want[:min(k, n)]
			if got := nearest(slices.Clone(res), k); !slices.Equal(got, want) {
				t.Fatalf("n %d, k %d:\n got %v\nwant %v", n, k, got, want)
			}
		}
	}
}
