package rerank

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/omoide/omoide/thesaurus"
)

// synthetic returns n rows whose label depends on an interaction: relevant
// when coverage is high and the message is strong, or the candidate is in
// the time window; 10 % of labels flipped.
func synthetic(n int, seed uint64) ([][]float64, []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	xs, ys := make([][]float64, n), make([]float64, n)
	for i := range n {
		x := make([]float64, NumFeatures)
		for f := range x {
			x[f] = r.Float64()
		}
		x[11] = float64(r.IntN(10) / 9) // in_window, 1 in 10
		y := 0.0
		if x[8] > 0.6 && x[15] > 0.4 || x[11] == 1 {
			y = 1
		}
		if r.Float64() < 0.1 {
			y = 1 - y
		}
		xs[i], ys[i] = x, y
	}
	return xs, ys
}

// TestFit: the ensemble learns an interaction a linear model cannot, its
// probabilities are calibrated on held-back rows, a fit is deterministic, and
// the model survives JSON.
func TestFit(t *testing.T) {
	xs, ys := synthetic(6000, 1)
	m, err := Fit(xs, ys, DefaultFitOptions())
	if err != nil {
		t.Fatal(err)
	}
	tx, ty := synthetic(4000, 2)
	ps := make([]float64, len(tx))
	right := 0
	for i, x := range tx {
		ps[i] = m.Probability(x)
		if (ps[i] >= 0.5) == (ty[i] == 1) {
			right++
		}
	}
	if acc := float64(right) / float64(len(tx)); acc < 0.87 {
		t.Errorf("held-back accuracy %.3f, want near 0.9 (10 %% of labels are noise)", acc)
	}
	if _, ece := Reliability(ps, ty, 10); ece > 0.05 {
		t.Errorf("expected calibration error %.3f on held-back rows, want at most 0.05", ece)
	}
	again, err := Fit(xs, ys, DefaultFitOptions())
	if err != nil || !reflect.DeepEqual(m, again) {
		t.Error("two fits of the same rows differ")
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadModel(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tx[:50] {
		if loaded.Probability(x) != m.Probability(x) {
			t.Fatal("the loaded model predicts otherwise")
		}
	}
}

// TestLoadModelRejects: a model of other features, a malformed tree or no
// calibration does not load.
func TestLoadModelRejects(t *testing.T) {
	good := Model{Features: FeatureNames, Scale: 1, Trees: []Tree{{Nodes: []Node{{Feature: 8, Threshold: 0.5, Left: 1, Right: 2}, {Feature: -1, Value: -1}, {Feature: -1, Value: 1}}}}}
	for name, mod := range map[string]func(m *Model){
		"other features":            func(m *Model) { m.Features = []string{"final"} },
		"no features":               func(m *Model) { m.Features = nil },
		"more features":             func(m *Model) { m.Features = append(slices.Clone(FeatureNames), "later") },
		"a split past its features": func(m *Model) { m.Features = FeatureNames[:8] }, // the split reads feature 8
		"a loop":                    func(m *Model) { m.Trees[0].Nodes[0].Left = 0 },
		"a lost child":              func(m *Model) { m.Trees[0].Nodes[0].Right = 9 },
		"no calibration":            func(m *Model) { m.Scale = 0 },
		"an empty tree":             func(m *Model) { m.Trees = append(m.Trees, Tree{}) },
	} {
		m := good
		m.Trees = []Tree{{Nodes: append([]Node(nil), good.Trees[0].Nodes...)}}
		mod(&m)
		b, _ := json.Marshal(m)
		if _, err := LoadModel(b); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	b, _ := json.Marshal(good)
	m, err := LoadModel(b)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, NumFeatures)
	x[8] = 0.9
	if p := m.Probability(x); math.Abs(p-1/(1+math.Exp(-1))) > 1e-12 {
		t.Errorf("P = %v, want sigmoid(1)", p)
	}
	// a model fitted before the last features were added loads and never
	// reads them
	early := good
	early.Features = FeatureNames[:9]
	b, _ = json.Marshal(early)
	em, err := LoadModel(b)
	if err != nil {
		t.Fatalf("a model of the first 9 features: %v", err)
	}
	for i := 9; i < NumFeatures; i++ {
		x[i] = 100
	}
	if p, q := em.Probability(x), m.Probability(x); p != q {
		t.Errorf("the early model reads a later feature: P = %v, want %v", p, q)
	}
	if _, err := LoadModel([]byte("{")); err == nil || !strings.Contains(err.Error(), "model") {
		t.Errorf("bad JSON: %v", err)
	}
}

// TestReliability: bins, their means and the calibration error.
func TestReliability(t *testing.T) {
	bins, ece := Reliability([]float64{0.05, 0.05, 0.95, 0.95, 0.55}, []float64{0, 0, 1, 0, 1}, 10)
	if bins[0].N != 2 || bins[0].Observed != 0 || bins[9].N != 2 || bins[9].Observed != 0.5 || bins[5].N != 1 {
		t.Fatalf("bins %+v", bins)
	}
	if want := (2*0.05 + 2*0.45 + 1*0.45) / 5; math.Abs(ece-want) > 1e-12 {
		t.Errorf("ECE %v, want %v", ece, want)
	}
}

// TestFeatures: a candidate's features against the first, and the signals.
func TestFeatures(t *testing.T) {
	scored := []Scored{
		{Candidate: Candidate{Parts: Parts{RRFNorm: 1, Coverage: 0.4, Meaning: 0.7}}, Final: 0.8},
		{Candidate: Candidate{Parts: Parts{RRFNorm: 0.5, Coverage: 0.9, InWindow: true, Meaning: 0.5}}, Final: 0.6, Raised: true},
	}
	f := Features(scored, 1, Signals{Strength: 0.5, Terms: 4, UnknownNames: 1, Latin: 1}, nil)
	if len(f) != NumFeatures || len(FeatureNames) != NumFeatures {
		t.Fatalf("%d features, %d names, want %d", len(f), len(FeatureNames), NumFeatures)
	}
	want := map[string]float64{"rank": 1, "final": 0.6, "ratio": 0.75, "rrf_norm": 0.5, "coverage": 0.9, "in_window": 1, "neighbor": 1,
		"top_coverage": 0.9, "coverage_gap": 0, "strength": 0.5, "terms": 4, "unknown_names": 1,
		"latin": 1, "kana": 0, "meaning": 0.5, "meaning_gap": 0.2}
	for i, name := range FeatureNames {
		if w, ok := want[name]; ok && math.Abs(f[i]-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, f[i], w)
		}
	}
	if g := f[2]; math.Abs(g-0.2) > 1e-12 {
		t.Errorf("gap = %v, want 0.2", g)
	}
}

// TestCosineStanding: a candidate's cosine as it stands among those the
// vector search found: its rank, its lead over the best other, its z-score,
// the same z where it matches no term, and the thesaurus's bridge; a
// candidate the search did not find ranks last.
func TestCosineStanding(t *testing.T) {
	scored := []Scored{
		{Candidate: Candidate{Parts: Parts{Cosine: 0.2, Coverage: 0.5}}},
		{Candidate: Candidate{Parts: Parts{Cosine: 0.6, Bridge: thesaurus.Equivalent}}},
		{Candidate: Candidate{Parts: Parts{Cosine: 0.4, Coverage: 0.3, Bridge: thesaurus.Sibling}}},
		{Candidate: Candidate{Parts: Parts{}}}, // found by BM25 alone
	}
	// cosines .2 .6 .4: mean .4, population sd sqrt(.08/3)
	sd := math.Sqrt(0.08 / 3)
	for _, tt := range []struct {
		i                           int
		rank, gap, z, alone, bridge float64
	}{
		{0, 2, -0.4, -0.2 / sd, 0, 0},
		{1, 0, 0.2, 0.2 / sd, 0.2 / sd, 3},
		{2, 1, -0.2, 0, 0, 1},
		{3, 4, 0, 0, 0, 0},
	} {
		f := Features(scored, tt.i, Signals{}, nil)
		got := map[string]float64{}
		for k, name := range FeatureNames {
			got[name] = f[k]
		}
		for name, w := range map[string]float64{"cos_rank": tt.rank, "cos_gap": tt.gap, "cos_z": tt.z, "cos_alone": tt.alone, "bridge": tt.bridge} {
			if math.Abs(got[name]-w) > 1e-9 {
				t.Errorf("candidate %d: %s = %v, want %v", tt.i, name, got[name], w)
			}
		}
		if x := WithoutVectors(f); x[24] != 0 || x[25] != 0 || x[26] != 0 || x[27] != 0 || x[28] != tt.bridge {
			t.Errorf("candidate %d without vectors: %v", tt.i, x[24:])
		}
	}
}

// TestInfluences: the feature a model splits on is the one that moved the
// probability, with the sign of its effect; a feature at 0 moved nothing.
func TestInfluences(t *testing.T) {
	m := &Model{Features: FeatureNames[:9], Scale: 1, Trees: []Tree{
		{Nodes: []Node{{Feature: 7, Threshold: 0.3, Left: 1, Right: 2}, {Feature: -1, Value: -2}, {Feature: -1, Value: 1}}},   // coverage
		{Nodes: []Node{{Feature: 0, Threshold: 2, Left: 1, Right: 2}, {Feature: -1, Value: 0.5}, {Feature: -1, Value: -0.5}}}, // rank
	}}
	x := make([]float64, 9)
	x[7], x[0], x[5] = 0.6, 4, 0.2 // high coverage, fifth rank, some lex (read by no tree)
	got := m.Influences(x, 3)
	if len(got) != 2 || got[0].Feature != "coverage" || got[0].LogOdds != 3 || got[1].Feature != "rank" || got[1].LogOdds != -1 {
		t.Fatalf("influences %+v, want coverage +3 then rank −1", got)
	}
	if one := m.Influences(x, 1); len(one) != 1 || one[0].Feature != "coverage" {
		t.Errorf("the first influence: %+v", one)
	}
}
