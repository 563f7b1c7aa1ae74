package wordvec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/omoide/omoide/tokenize"
)

// topicCorpus generates exchanges over topics, with tokenize.Raw's terms (the
// words as written, split at spaces). Topic g has contexts c<g>_0..c<g>_7 and
// two twins, x<g> and y<g>: each exchange holds one twin (never both) and
// three of its topic's contexts, so the twins share every context and never
// meet. Word lone<g> appears with topic g's contexts in exchanges of its own
// and nothing else.
func topicCorpus(topics, perTopic int, seed uint64) []Exchange {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []Exchange
	for range perTopic {
		for g := range topics {
			twin := fmt.Sprintf("x%d", g)
			if rng.IntN(2) == 1 {
				twin = fmt.Sprintf("y%d", g)
			}
			var ctx []string
			for _, k := range rng.Perm(8)[:3] {
				ctx = append(ctx, fmt.Sprintf("c%d_%d", g, k))
			}
			out = append(out, Exchange{Message: twin + " " + ctx[0], Reply: ctx[1] + " " + ctx[2]})
		}
	}
	return out
}

// learn learns from exchanges with tokenize.Raw or fails the test.
func learn(t testing.TB, exchanges []Exchange, opts Options) *Vectors {
	t.Helper()
	v, err := Learn(context.Background(), tokenize.Raw(), exchanges, opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestTwinsAreNearestAndTopicsApart(t *testing.T) {
	const topics = 4
	v := learn(t, topicCorpus(topics, 300, 1), Options{Dim: 16})
	if got, want := v.Len(), topics*10; got != want {
		t.Fatalf("%d terms, want %d (8 contexts and 2 twins a topic)", got, want)
	}
	for g := range topics {
		for _, pair := range [][2]string{{fmt.Sprintf("x%d", g), fmt.Sprintf("y%d", g)}, {fmt.Sprintf("y%d", g), fmt.Sprintf("x%d", g)}} {
			near := v.Nearest(pair[0], 1)
			if len(near) != 1 || near[0].Term != pair[1] {
				t.Errorf("nearest of %s: %v, want %s (same contexts, never together)", pair[0], near, pair[1])
			}
		}
	}
	// Twins of other topics share no context: far apart, and far below
	// the twins of one topic.
	for g := range topics {
		for h := range topics {
			if g == h {
				continue
			}
			x, y := fmt.Sprintf("x%d", g), fmt.Sprintf("x%d", h)
			far, _ := v.Similarity(x, y)
			twin, _ := v.Similarity(x, fmt.Sprintf("y%d", g))
			if far > 0.2 || twin-far < 0.5 {
				t.Errorf("cos(%s, %s) = %.3f, cos of twins %.3f: want topics apart", x, y, far, twin)
			}
		}
	}
}

func TestVectorsAreUnitAndNearestOrdered(t *testing.T) {
	v := learn(t, topicCorpus(3, 200, 2), Options{Dim: 8})
	for _, term := range v.Terms() {
		row, ok := v.Lookup(term)
		if !ok || len(row) != v.Dim() {
			t.Fatalf("Lookup(%s): %d dims, %v", term, len(row), ok)
		}
		norm := float64(dot(row, row))
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("|%s|² = %v, want 1", term, norm)
		}
	}
	tests := []struct {
		term string
		k    int
		want int // neighbours returned
	}{
		{"x0", 5, 5},
		{"x0", 1000, v.Len() - 1}, // all but itself
		{"x0", 0, 0},
		{"unknown", 5, 0},
	}
	for _, tc := range tests {
		near := v.Nearest(tc.term, tc.k)
		if len(near) != tc.want {
			t.Errorf("Nearest(%s, %d): %d neighbours, want %d", tc.term, tc.k, len(near), tc.want)
		}
		for i, n := range near {
			if n.Term == tc.term {
				t.Errorf("Nearest(%s) holds the term itself", tc.term)
			}
			if i > 0 && n.Cosine > near[i-1].Cosine {
				t.Errorf("Nearest(%s): %v before %v", tc.term, near[i-1], n)
			}
			if c, _ := v.Similarity(tc.term, n.Term); c != n.Cosine {
				t.Errorf("Nearest(%s): %s at %v, Similarity %v", tc.term, n.Term, n.Cosine, c)
			}
		}
	}
	row, _ := v.Lookup("x1")
	scaled := make([]float32, len(row))
	for i, x := range row {
		scaled[i] = 3 * x
	}
	if near := v.NearestTo(scaled, 1); len(near) != 1 || near[0].Term != "x1" {
		t.Errorf("NearestTo(3·x1) = %v, want x1 itself", near)
	}
	if near := v.NearestTo(make([]float32, v.Dim()), 1); near != nil {
		t.Errorf("NearestTo(zero) = %v, want nil", near)
	}
}

func TestMinCount(t *testing.T) {
	ex := topicCorpus(2, 100, 3)
	// rare occurs n times, each time with topic 0's contexts.
	for n := 1; n <= 5; n++ {
		ex = append(ex, Exchange{Message: fmt.Sprintf("rare%d c0_1", n), Reply: "c0_2"})
		for range n - 1 {
			ex = append(ex, Exchange{Message: fmt.Sprintf("rare%d c0_3", n), Reply: "c0_4"})
		}
	}
	for _, tc := range []struct {
		minCount int
		has      []string
		lacks    []string
	}{
		{0, []string{"rare5"}, []string{"rare4", "rare1"}}, // DefaultMinCount 5
		{3, []string{"rare5", "rare4", "rare3"}, []string{"rare2", "rare1"}},
		{1, []string{"rare5", "rare1"}, nil},
	} {
		v := learn(t, ex, Options{Dim: 8, MinCount: tc.minCount})
		for _, w := range tc.has {
			if _, ok := v.Lookup(w); !ok {
				t.Errorf("MinCount %d: %s has no vector", tc.minCount, w)
			}
		}
		for _, w := range tc.lacks {
			if _, ok := v.Lookup(w); ok {
				t.Errorf("MinCount %d: %s has a vector", tc.minCount, w)
			}
		}
		if got := v.Count("rare5"); got != 5 {
			t.Errorf("Count(rare5) = %d, want 5", got)
		}
	}
}

func TestCooccurrenceCounts(t *testing.T) {
	tests := []struct {
		name   string
		window int
		ex     []Exchange
		want   map[[2]string]float32 // pairs not named are 0
	}{
		{"exchange: distinct pairs once", 0, []Exchange{{"a a b", "c"}},
			map[[2]string]float32{{"a", "b"}: 1, {"a", "c"}: 1, {"b", "c"}: 1}},
		{"exchange: per exchange", 0, []Exchange{{"a b", ""}, {"b", "a"}, {"c", ""}},
			map[[2]string]float32{{"a", "b"}: 2}},
		{"window 1: neighbours only, across message and reply", 1, []Exchange{{"a b", "c"}},
			map[[2]string]float32{{"a", "b"}: 1, {"b", "c"}: 1}},
		{"window 1: each time", 1, []Exchange{{"a b a", ""}},
			map[[2]string]float32{{"a", "b"}: 2}},
		{"window 2: not across exchanges", 2, []Exchange{{"a b", ""}, {"c", ""}},
			map[[2]string]float32{{"a", "b"}: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLearner(tokenize.Raw(), Options{MinCount: 1, Window: tc.window})
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Add(context.Background(), tc.ex...); err != nil {
				t.Fatal(err)
			}
			vocab, remap := l.vocabulary()
			m, err := l.cooccurrences(context.Background(), len(vocab), remap)
			if err != nil {
				t.Fatal(err)
			}
			at := func(a, b string) float32 {
				i, j := remap[l.ids[a]], remap[l.ids[b]]
				for k := m.start[i]; k < m.start[i+1]; k++ {
					if m.cols[k] == j {
						return m.vals[k]
					}
				}
				return 0
			}
			for _, a := range l.terms {
				for _, b := range l.terms {
					want := tc.want[[2]string{a, b}] + tc.want[[2]string{b, a}]
					if got := at(a, b); got != want {
						t.Errorf("#(%s, %s) = %v, want %v", a, b, got, want)
					}
				}
			}
		})
	}
}

func TestPPMI(t *testing.T) {
	counts := [][]float32{
		{0, 4, 1, 0},
		{4, 0, 2, 1},
		{1, 2, 0, 6},
		{0, 1, 6, 0},
	}
	for _, alpha := range []float64{1, 0.75} {
		m := denseToCSR(counts)
		got := m.ppmi(alpha)
		sums := make([]float64, len(counts))
		z := 0.0
		for i, row := range counts {
			for _, c := range row {
				sums[i] += float64(c)
			}
		}
		for _, s := range sums {
			z += math.Pow(s, alpha)
		}
		for i, row := range counts {
			for j, c := range row {
				want := 0.0
				if c > 0 {
					want = max(0, math.Log(float64(c)*z/(sums[i]*math.Pow(sums[j], alpha))))
				}
				have := 0.0
				for k := got.start[i]; k < got.start[i+1]; k++ {
					if int(got.cols[k]) == j {
						have = float64(got.vals[k])
						if have <= 0 {
							t.Errorf("alpha %v: (%d,%d) stored as %v: only positive values are kept", alpha, i, j, have)
						}
					}
				}
				if math.Abs(have-want) > 1e-5 {
					t.Errorf("alpha %v: ppmi(%d,%d) = %v, want %v", alpha, i, j, have, want)
				}
			}
		}
	}
}

// denseToCSR returns the csr of a dense square matrix.
func denseToCSR(d [][]float32) *csr {
	m := &csr{rows: len(d), start: make([]int, len(d)+1)}
	for i, row := range d {
		for j, x := range row {
			if x != 0 {
				m.cols = append(m.cols, int32(j))
				m.vals = append(m.vals, x)
			}
		}
		m.start[i+1] = len(m.cols)
	}
	return m
}

func TestRandomizedSVDMatchesExactSVD(t *testing.T) {
	// A random sparse nonnegative matrix with a decaying spectrum: the
	// randomized SVD's rows (U·Σ^p) must span what the exact SVD's do, so
	// their Gram matrices (row dot products, free of signs and rotations
	// within equal singular values) agree.
	const n, dim = 60, 5
	rng := rand.New(rand.NewPCG(3, 3))
	d := make([][]float32, n)
	for i := range d {
		d[i] = make([]float32, n)
	}
	for k := range dim {
		u, w := rng.Perm(n)[:12], rng.Perm(n)[:12]
		for _, i := range u {
			for _, j := range w {
				d[i][j] += float32(math.Pow(4, float64(dim-k)))
			}
		}
	}
	for range 40 { // noise
		d[rng.IntN(n)][rng.IntN(n)] += 0.5
	}
	dense := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			dense.Set(i, j, float64(d[i][j]))
		}
	}
	var exact mat.SVD
	if !exact.Factorize(dense, mat.SVDThin) {
		t.Fatal("exact svd failed")
	}
	var u mat.Dense
	exact.UTo(&u)
	sv := exact.Values(nil)
	want := mat.NewDense(n, dim, nil)
	for i := range n {
		for k := range dim {
			want.Set(i, k, u.At(i, k)*math.Sqrt(sv[k]))
		}
	}
	o, _ := Options{Workers: 2}.resolved()
	got, err := randomizedSVD(context.Background(), denseToCSR(d), dim, o)
	if err != nil {
		t.Fatal(err)
	}
	var gw, gg mat.Dense
	gw.Mul(want, want.T())
	gg.Mul(got, got.T())
	scale := mat.Norm(&gw, 2)
	gg.Sub(&gg, &gw)
	if rel := mat.Norm(&gg, 2) / scale; rel > 1e-3 {
		t.Errorf("Gram matrices differ by %.2g (relative), want < 1e-3", rel)
	}
}

func TestLearnIsDeterministic(t *testing.T) {
	ex := topicCorpus(5, 150, 4)
	var files [][]byte
	for _, workers := range []int{1, 2, 5} {
		v := learn(t, ex, Options{Dim: 12, Workers: workers})
		var b bytes.Buffer
		if err := v.Write(&b); err != nil {
			t.Fatal(err)
		}
		files = append(files, b.Bytes())
	}
	for i := 1; i < len(files); i++ {
		if !bytes.Equal(files[0], files[i]) {
			t.Errorf("run %d wrote other bytes than run 0", i)
		}
	}
	// Another seed projects otherwise: other bytes, the same neighbours.
	other := learn(t, ex, Options{Dim: 12, Seed: 99})
	var b bytes.Buffer
	if err := other.Write(&b); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(b.Bytes(), files[0]) {
		t.Error("seeds 1 and 99 wrote the same bytes")
	}
	if near := other.Nearest("x3", 1); len(near) != 1 || near[0].Term != "y3" {
		t.Errorf("seed 99: nearest of x3 = %v, want y3", near)
	}
}

func TestWriteRead(t *testing.T) {
	ex := topicCorpus(6, 150, 5)
	l, err := NewLearner(tokenize.Raw(), Options{Dim: 16})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Add(context.Background(), ex...); err != nil {
		t.Fatal(err)
	}
	v, err := l.Learn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := v.Write(&b); err != nil {
		t.Fatal(err)
	}
	// Size: the header, params and the terms, then 4+dim bytes a row and
	// the checksum, nothing more.
	params := b.Len() - 32 - v.Len()*(4+v.Dim())
	terms := 0
	for _, term := range v.Terms() {
		terms += 1 + len(term) + len(fmt.Sprint(v.Count(term))) // upper bound of the uvarints here
	}
	if params <= 0 || params > len(magic)+2+512+terms {
		t.Errorf("file of %d bytes: %d before the rows, want at most header, params and %d bytes of terms", b.Len(), params, terms)
	}
	r, err := Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if r.Fingerprint() != v.Fingerprint() || r.Params() != v.Params() || !slices.Equal(r.Terms(), v.Terms()) || r.Dim() != v.Dim() {
		t.Fatalf("read back: %s %+v, wrote %s %+v", r.Fingerprint(), r.Params(), v.Fingerprint(), v.Params())
	}
	if p := r.Params(); p.Analyzer != "raw" || p.Exchanges != len(ex) || p.Dim != 16 || p.MinCount != DefaultMinCount || p.Corpus == "" {
		t.Errorf("params %+v", p)
	}
	for _, term := range v.Terms() {
		a, _ := v.Lookup(term)
		c, _ := r.Lookup(term)
		if !slices.Equal(a, c) || v.Count(term) != r.Count(term) {
			t.Fatalf("%s: read back otherwise", term)
		}
	}
	// The quantisation error, against the unquantised rows.
	vocab, remap := l.vocabulary()
	m, err := l.cooccurrences(context.Background(), len(vocab), remap)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := randomizedSVD(context.Background(), m.ppmi(l.opts.ContextSmoothing), 16, l.opts)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, id := range vocab {
		exact := mat.Row(nil, i, rows)
		q, ok := r.Lookup(l.terms[id])
		if !ok {
			continue
		}
		var d, nn float64
		for k, x := range exact {
			d += x * float64(q[k])
			nn += x * x
		}
		worst = max(worst, 1-d/math.Sqrt(nn))
	}
	if worst > 1e-3 {
		t.Errorf("quantised rows: cosine to the learned row down to %.5f, want within 1e-3", 1-worst)
	}
	t.Logf("%d terms × %d dims: %d bytes; worst cosine error %.2g", v.Len(), v.Dim(), b.Len(), worst)
}

func TestReadRefusesDamage(t *testing.T) {
	v := learn(t, topicCorpus(3, 100, 6), Options{Dim: 8})
	var b bytes.Buffer
	if err := v.Write(&b); err != nil {
		t.Fatal(err)
	}
	good := b.Bytes()
	edit := func(f func(b []byte) []byte) []byte { return f(slices.Clone(good)) }
	tests := []struct {
		name string
		file []byte
	}{
		{"empty", nil},
		{"other magic", edit(func(b []byte) []byte { b[0] = 'X'; return b })},
		{"other version", edit(func(b []byte) []byte { b[len(magic)] = 9; return b })},
		{"a row's byte flipped", edit(func(b []byte) []byte { b[len(b)-40] ^= 1; return b })},
		{"checksum flipped", edit(func(b []byte) []byte { b[len(b)-1] ^= 1; return b })},
		{"truncated", good[:len(good)-10]},
		{"no checksum", good[:len(good)-32]},
		{"bytes after", append(slices.Clone(good), 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Read(bytes.NewReader(tc.file)); !errors.Is(err, ErrFormat) {
				t.Errorf("Read: %v, want ErrFormat", err)
			}
		})
	}
}

func TestOptionsAndInputRefused(t *testing.T) {
	for _, o := range []Options{{Dim: -1}, {Dim: MaxDim + 1}, {MinCount: -1}, {Window: -1}, {ContextSmoothing: 1.5},
		{ContextSmoothing: math.NaN()}, {SingularPower: math.Inf(1)}, {Oversample: -1}, {Workers: -1}} {
		if _, err := NewLearner(tokenize.Raw(), o); err == nil {
			t.Errorf("NewLearner(%+v) accepted", o)
		}
	}
	if _, err := NewLearner(nil, Options{}); err == nil {
		t.Error("NewLearner without an analyzer accepted")
	}
	if _, err := Learn(context.Background(), tokenize.Raw(), []Exchange{{"a b", "c"}}, Options{}); err == nil {
		t.Error("learned from terms seen fewer than MinCount times")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Learn(ctx, tokenize.Raw(), topicCorpus(3, 100, 7), Options{Dim: 8}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v, want context.Canceled", err)
	}
}

func TestVocabularyIsTheIndexTerms(t *testing.T) {
	// With the default store analyzer, every term with a vector is a term
	// the index holds for the text, seen as many times as the index holds it.
	a := tokenize.CJK()
	base := []Exchange{
		{"昨日は雨で映画を観に行った", "雨の日の映画館はいいね"},
		{"犬の散歩に行ってきた", "犬は元気だった？"},
		{"ラーメンを食べに京都へ", "京都のラーメンはこってりだね"},
		{"バイトが忙しい", "アルバイトお疲れさま"},
	}
	var ex []Exchange
	for range 6 {
		ex = append(ex, base...)
	}
	v, err := Learn(context.Background(), a, ex, Options{Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int64{}
	for _, e := range ex {
		for _, text := range []string{e.Message, e.Reply} {
			for term := range strings.FieldsSeq(a.Index(text)) {
				index[term]++
			}
		}
	}
	for _, term := range v.Terms() {
		if index[term] == 0 || v.Count(term) != index[term] {
			t.Errorf("%q: seen %d times, the index holds it %d times", term, v.Count(term), index[term])
		}
	}
	for term, n := range index {
		if _, ok := v.Lookup(term); n >= DefaultMinCount && !ok {
			t.Errorf("%q: indexed %d times, no vector", term, n)
		}
	}
	if p := v.Params(); p.Analyzer != a.Name() {
		t.Errorf("analyzer %q, want %q", p.Analyzer, a.Name())
	}
}

func BenchmarkLearn(b *testing.B) {
	// 20,000 exchanges over 100 topics: 1,000 terms.
	ex := topicCorpus(100, 200, 8)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Learn(context.Background(), tokenize.Raw(), ex, Options{Dim: 64}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNearest(b *testing.B) {
	v := learn(b, topicCorpus(100, 200, 8), Options{Dim: 64})
	b.ReportAllocs()
	for b.Loop() {
		v.Nearest("x7", 10)
	}
}
