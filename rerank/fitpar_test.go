package rerank

import (
	"bytes"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestFitSameOnAnyCores: the split search runs the features in parts at
// once; the model is the one a scan in feature order finds, whatever the
// number of parts (ties between features, many here, go to the first).
func TestFitSameOnAnyCores(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs, ys := make([][]float64, 3000), make([]float64, 3000)
	for i := range xs {
		x := make([]float64, NumFeatures)
		for f := range x {
			x[f] = float64(rng.IntN(4)) // few values: equal gains across features
		}
		x[5] = x[2] // two features that always tie
		xs[i] = x
		if x[2]+x[7]+rng.NormFloat64() > 3 {
			ys[i] = 1
		}
	}
	o := DefaultFitOptions()
	o.Trees = 15
	var models [][]byte
	for _, procs := range []int{1, 2, 3, 7} {
		prev := runtime.GOMAXPROCS(procs)
		m, err := Fit(xs, ys, o)
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, b)
		for _, tr := range m.Trees {
			for _, n := range tr.Nodes {
				if n.Feature == 5 {
					t.Fatalf("GOMAXPROCS %d: a split on feature 5, which always ties with feature 2 (the first must win)", procs)
				}
			}
		}
	}
	for i := 1; i < len(models); i++ {
		if !bytes.Equal(models[i], models[0]) {
			t.Fatalf("the model fitted with %d parts differs from the one fitted with 1", []int{1, 2, 3, 7}[i])
		}
	}
}

// TestPlattScale: Platt scaling recovers the slope and intercept of labels
// drawn from a known logistic curve, and leaves calibrated log-odds as they
// are (a ≈ 1, b ≈ 0).
func TestPlattScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ a, b float64 }{{2, -1}, {1, 0}, {0.5, 0.7}} {
		z, ys := make([]float64, 20000), make([]float64, 20000)
		for i := range z {
			z[i] = rng.NormFloat64() * 2
			if rng.Float64() < sigmoid(c.a*z[i]+c.b) {
				ys[i] = 1
			}
		}
		a, b := plattScale(z, ys)
		if math.Abs(a-c.a) > 0.1 || math.Abs(b-c.b) > 0.1 {
			t.Errorf("labels of sigmoid(%g·z + %g): fitted a %.3f, b %.3f", c.a, c.b, a, b)
		}
	}
}
