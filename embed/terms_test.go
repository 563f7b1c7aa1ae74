package embed

import (
	"context"
	"math"
	"strings"
	"testing"
)

// fakeTerms are three words in two dimensions: バイト and アルバイト one
// direction, 猫 another; です is frequent.
type fakeTerms map[string]struct {
	v []float32
	n int64
}

func (f fakeTerms) Dim() int { return 2 }
func (f fakeTerms) Terms() []string {
	var out []string
	for t := range f {
		out = append(out, t)
	}
	return out
}
func (f fakeTerms) Count(t string) int64 { return f[t].n }
func (f fakeTerms) Lookup(t string) ([]float32, bool) {
	e, ok := f[t]
	return e.v, ok
}
func (f fakeTerms) Fingerprint() string { return "0123456789abcdef0123" }

var twoWords = fakeTerms{
	"バイト":   {[]float32{1, 0}, 10},
	"アルバイト": {[]float32{0.96, 0.28}, 10},
	"猫":     {[]float32{0, 1}, 10},
	"です":    {[]float32{0.6, 0.8}, 100000},
}

func TestTerms(t *testing.T) {
	e, err := NewTerms(twoWords, TermOptions{Index: func(s string) string { return s }, Analyzer: "space"})
	if err != nil {
		t.Fatal(err)
	}
	if id := e.Identity(); id.Name != "terms:0123456789abcdef+space" || id.Dim != 2 {
		t.Errorf("Identity = %v", id)
	}
	vs, err := e.Embed(context.Background(), []string{"バイト です", "アルバイト", "猫 です", "未知語", ""})
	if err != nil || len(vs) != 5 {
		t.Fatalf("Embed: %d vectors, %v", len(vs), err)
	}
	cos := func(a, b []float32) float64 { return float64(a[0]*b[0] + a[1]*b[1]) }
	if c := cos(vs[0], vs[1]); c < 0.9 {
		t.Errorf("バイト です ~ アルバイト: cosine %.2f, want near (です weighs little)", c)
	}
	if c := cos(vs[0], vs[2]); c > 0.5 {
		t.Errorf("バイト です ~ 猫 です: cosine %.2f, want far", c)
	}
	for i := range 3 {
		if n := math.Hypot(float64(vs[i][0]), float64(vs[i][1])); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has length %.4f, want 1", i, n)
		}
	}
	for _, i := range []int{3, 4} {
		if vs[i][0] != 0 || vs[i][1] != 0 {
			t.Errorf("a text without a known term: %v, want the zero vector", vs[i])
		}
	}
	if w, f := e.Weight("です"), e.Weight("猫"); !(w < f/10) || e.Weight("未知語") != 0 {
		t.Errorf("weights: です %.4g, 猫 %.4g, 未知語 %.4g; want a frequent term far lighter, an unknown one 0", w, f, e.Weight("未知語"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"猫"}); err == nil {
		t.Error("Embed under a cancelled context: no error")
	}
	if _, err := NewTerms(twoWords, TermOptions{}); err == nil || !strings.Contains(err.Error(), "analyzer") {
		t.Errorf("NewTerms without the analyzer: %v", err)
	}
}
