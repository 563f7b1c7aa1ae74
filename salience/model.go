package salience

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/optimize"
)

// Model weighs an exchange's features: P = sigmoid(Bias + Σ Weights[i]·x[i]),
// fitted on ratings (Fit). It is data, stored as JSON, and only read after
// it is loaded: safe for concurrent use.
type Model struct {
	// Features name the inputs, the first of FeatureNames in their order.
	Features []string  `json:"features"`
	Weights  []float64 `json:"weights"`
	Bias     float64   `json:"bias"`
	// About says how the model was made: the command, the suites, the
	// figures on people no fit saw.
	About map[string]any `json:"about,omitempty"`
}

//go:embed model.json
var modelJSON []byte

// DefaultModel returns the embedded model (model.json, made by the command
// in its "about"), loaded once and shared.
var DefaultModel = sync.OnceValues(func() (*Model, error) { return LoadModel(modelJSON) })

// LoadModel decodes a model and checks that it names the first of
// FeatureNames and a weight for each.
func LoadModel(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("salience: model: %w", err)
	}
	if len(m.Features) == 0 || len(m.Features) > NumFeatures || !slices.Equal(m.Features, FeatureNames[:len(m.Features)]) {
		return nil, fmt.Errorf("salience: model: its features %q are not the first of this version's %q (refit it with bench salience)", m.Features, FeatureNames)
	}
	if len(m.Weights) != len(m.Features) {
		return nil, fmt.Errorf("salience: model: %d weights for %d features", len(m.Weights), len(m.Features))
	}
	return &m, nil
}

// logOdds is the model's log-odds of a row of Features.
func (m *Model) logOdds(x []float64) float64 {
	z := m.Bias
	for i, w := range m.Weights {
		z += w * x[i]
	}
	return z
}

// Probability returns the model's salience of a row of Features, in [0, 1].
func (m *Model) Probability(x []float64) float64 { return sigmoid(m.logOdds(x)) }

// Score returns the salience of an exchange, the person's words user and
// the companion's reply, by the embedded model; 0 when it does not load
// (a test of this package fails then).
func Score(user, reply string) float64 {
	m, err := DefaultModel()
	if err != nil {
		return 0
	}
	var buf [NumFeatures]float64
	return m.Probability(Features(user, reply, buf[:0]))
}

// Part is one feature's share of a salience.
type Part struct {
	Feature string  // its name (FeatureNames)
	Value   float64 // the exchange's value of it
	LogOdds float64 // its weight times its value: above 0 it raised the salience
}

// Explanation is a salience and the parts that made it, largest first.
type Explanation struct {
	Salience float64
	Parts    []Part // the features the exchange has (value not 0) and the model weighs
}

// Explain returns the salience of an exchange by m and each feature's share
// of it.
func (m *Model) Explain(user, reply string) Explanation {
	x := Features(user, reply, nil)
	e := Explanation{Salience: m.Probability(x)}
	for i, w := range m.Weights {
		if x[i] != 0 && w != 0 {
			e.Parts = append(e.Parts, Part{Feature: m.Features[i], Value: x[i], LogOdds: w * x[i]})
		}
	}
	sort.SliceStable(e.Parts, func(a, b int) bool { return math.Abs(e.Parts[a].LogOdds) > math.Abs(e.Parts[b].LogOdds) })
	return e
}

// Fit fits a Model on rows xs (Features) and targets ys in [0, 1] (a
// rating over its greatest), each row weighing ws[i] (nil: 1): the logistic
// model of least cross-entropy, its weights shrunk by l2·Σw² (not the
// bias). It is deterministic.
func Fit(xs [][]float64, ys, ws []float64, l2 float64) (*Model, error) {
	n := len(xs)
	if n == 0 || len(ys) != n || ws != nil && len(ws) != n {
		return nil, fmt.Errorf("salience: fit: %d rows, %d targets, %d weights", n, len(ys), len(ws))
	}
	for i, y := range ys {
		if y < 0 || y > 1 || math.IsNaN(y) {
			return nil, fmt.Errorf("salience: fit: target %d is %v, want [0, 1]", i, y)
		}
		if len(xs[i]) != NumFeatures {
			return nil, fmt.Errorf("salience: fit: row %d has %d features, want %d", i, len(xs[i]), NumFeatures)
		}
	}
	w := func(i int) float64 {
		if ws == nil {
			return 1
		}
		return ws[i]
	}
	d := NumFeatures + 1 // the bias last
	loss := func(p []float64) float64 {
		l := 0.0
		for i, x := range xs {
			z := p[NumFeatures]
			for j, v := range x {
				z += p[j] * v
			}
			l += w(i) * (max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) - ys[i]*z)
		}
		for j := range NumFeatures {
			l += l2 * p[j] * p[j]
		}
		return l
	}
	grad := func(g, p []float64) {
		clear(g)
		for i, x := range xs {
			z := p[NumFeatures]
			for j, v := range x {
				z += p[j] * v
			}
			r := w(i) * (sigmoid(z) - ys[i])
			for j, v := range x {
				g[j] += r * v
			}
			g[NumFeatures] += r
		}
		for j := range NumFeatures {
			g[j] += 2 * l2 * p[j]
		}
	}
	res, err := optimize.Minimize(optimize.Problem{Func: loss, Grad: grad}, make([]float64, d),
		&optimize.Settings{GradientThreshold: 1e-8, MajorIterations: 2000}, &optimize.BFGS{})
	if res == nil || len(res.X) != d {
		return nil, fmt.Errorf("salience: fit: %w", errors.Join(errors.New("no solution"), err))
	}
	for _, v := range res.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("salience: fit: diverged")
		}
	}
	return &Model{Features: slices.Clone(FeatureNames), Weights: slices.Clone(res.X[:NumFeatures]), Bias: res.X[NumFeatures]}, nil
}

// AUC returns the probability that a row of label 1 scores above one of
// label 0 (ties count half): how well scores rank the worth-remembering
// exchanges (pos) first. NaN without both.
func AUC(scores []float64, pos []bool) float64 {
	type sp struct {
		s float64
		p bool
	}
	r := make([]sp, len(scores))
	for i := range r {
		r[i] = sp{scores[i], pos[i]}
	}
	sort.SliceStable(r, func(a, b int) bool { return r[a].s < r[b].s })
	var np, nn, sum float64
	for i := 0; i < len(r); {
		j := i
		for j < len(r) && r[j].s == r[i].s {
			j++
		}
		mid := float64(i+j+1) / 2 // the tied rows' mean rank, from 1
		for k := i; k < j; k++ {
			if r[k].p {
				np++
				sum += mid
			} else {
				nn++
			}
		}
		i = j
	}
	if np == 0 || nn == 0 {
		return math.NaN()
	}
	return (sum - np*(np+1)/2) / (np * nn)
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

func ln1p(x float64) float64 { return math.Log1p(x) }

// Encode returns the model as JSON that LoadModel reads.
func (m *Model) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, fmt.Errorf("salience: model: %w", err)
	}
	return append(b, '\n'), nil
}
