package rerank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Model is a fitted estimate of P(relevant | Features): a small ensemble of
// regression trees over the candidate's features (gradient boosting with the
// logistic loss), then Platt scaling, so that its output is a calibrated
// probability. It is data, not code: fitted by cmd/bench train, stored as
// JSON. A Model is only read after it is loaded, so it is safe for
// concurrent use.
type Model struct {
	// Features name the inputs, the first of FeatureNames in their order: a
	// model fitted before a feature was added never reads it, and a model
	// of other features does not load.
	Features []string `json:"features"`
	Bias     float64  `json:"bias"` // the log-odds every tree adds to
	Trees    []Tree   `json:"trees"`
	// Scale and Shift calibrate the ensemble's log-odds z:
	// P = 1 / (1 + exp(-(Scale·z + Shift))).
	Scale float64 `json:"scale"`
	Shift float64 `json:"shift"`
	// About says how the model was made: the command, the commit, the
	// suites and the figures on held-back data.
	About map[string]any `json:"about,omitempty"`
}

// Tree is one regression tree: Nodes[0] is the root.
type Tree struct {
	Nodes []Node `json:"nodes"`
}

// Node is a split (Feature >= 0: x[Feature] < Threshold goes Left, else
// Right) or a leaf (Feature < 0) adding Value to the log-odds.
type Node struct {
	Feature   int     `json:"f"`
	Threshold float64 `json:"t,omitempty"`
	Left      int     `json:"l,omitempty"`
	Right     int     `json:"r,omitempty"`
	Value     float64 `json:"v,omitempty"`
}

// LoadModel decodes a model and checks that it is whole: its features are
// the first of FeatureNames, every split reads one of them, every node's
// children exist and every walk ends in a leaf.
func LoadModel(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("rerank: model: %w", err)
	}
	if len(m.Features) == 0 || len(m.Features) > NumFeatures || !slices.Equal(m.Features, FeatureNames[:len(m.Features)]) {
		return nil, fmt.Errorf("rerank: model: its features %q are not the first of this version's %q (refit it with cmd/bench train)", m.Features, FeatureNames)
	}
	for ti, t := range m.Trees {
		if len(t.Nodes) == 0 {
			return nil, fmt.Errorf("rerank: model: tree %d is empty", ti)
		}
		for ni, n := range t.Nodes {
			if n.Feature < 0 {
				continue
			}
			// children come after their parent, so every walk ends
			if n.Feature >= len(m.Features) || n.Left <= ni || n.Right <= ni || n.Left >= len(t.Nodes) || n.Right >= len(t.Nodes) {
				return nil, fmt.Errorf("rerank: model: tree %d node %d is malformed", ti, ni)
			}
		}
	}
	if m.Scale == 0 {
		return nil, fmt.Errorf("rerank: model: no calibration (scale 0)")
	}
	return &m, nil
}

// logOdds returns the ensemble's uncalibrated log-odds for x.
func (m *Model) logOdds(x []float64) float64 {
	z := m.Bias
	for _, t := range m.Trees {
		i := 0
		for {
			n := t.Nodes[i]
			if n.Feature < 0 {
				z += n.Value
				break
			}
			if x[n.Feature] < n.Threshold {
				i = n.Left
			} else {
				i = n.Right
			}
		}
	}
	return z
}

// Probability returns the calibrated P(relevant) of a candidate whose
// features are x (Features).
func (m *Model) Probability(x []float64) float64 {
	return sigmoid(m.Scale*m.logOdds(x) + m.Shift)
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// Encode returns the model as JSON that LoadModel reads, one tree per line,
// so that a refit reads as a diff.
func (m *Model) Encode() ([]byte, error) {
	head, err := json.MarshalIndent(struct {
		Features []string       `json:"features"`
		Bias     float64        `json:"bias"`
		Scale    float64        `json:"scale"`
		Shift    float64        `json:"shift"`
		About    map[string]any `json:"about,omitempty"`
	}{m.Features, m.Bias, m.Scale, m.Shift, m.About}, "", " ")
	if err != nil {
		return nil, fmt.Errorf("rerank: model: %w", err)
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-1]) // without the closing brace
	b.WriteString(",\n \"trees\": [")
	for i, t := range m.Trees {
		if i > 0 {
			b.WriteByte(',')
		}
		tb, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("rerank: model: %w", err)
		}
		b.WriteString("\n  ")
		b.Write(tb)
	}
	b.WriteString("\n ]\n}\n")
	return b.Bytes(), nil
}

// AnyEmbedder is the FittedFor of a model fitted without the features an
// embedder's scale sets (WithoutVectors): it decides for any embedder.
const AnyEmbedder = "any"

// AnySemantic is the FittedFor of a model fitted without the features an
// embedder's scale sets but with where its cosine stands (WithoutScale): it
// decides for any semantic embedder, not for a lexical one.
const AnySemantic = "any-semantic"

// FittedFor returns the identity of the embedder the model was fitted for
// (About["embedder"], as cmd/bench train records it; "hash-v1+w/256" for
// DefaultModel), AnyEmbedder for an embedder-free model, "" when the model
// does not say.
func (m *Model) FittedFor() string {
	s, _ := m.About["embedder"].(string)
	return s
}

// Suits reports whether m may decide for a store whose embedder's identity
// is id: fitted for it or for any embedder, or saying nothing (a model
// made before models said).
func (m *Model) Suits(id string) bool {
	f := m.FittedFor()
	return f == "" || f == AnyEmbedder || f == id
}

// Influence is how much one feature moved a candidate's probability.
type Influence struct {
	Feature string  // its name (FeatureNames)
	Value   float64 // the candidate's value of it
	// LogOdds is the model's calibrated log-odds with the feature as it
	// is, less with the feature at 0 (absent, or the first rank): above 0
	// it raised the probability, below 0 it lowered it.
	LogOdds float64
}

// Influences returns the n features that moved the probability of a
// candidate whose features are x (Features) most, largest first: each
// feature's effect, the others held, of its value against 0. It is a
// reading for a person asking why, not a decomposition: the effects of
// features that act together do not add up to the probability.
func (m *Model) Influences(x []float64, n int) []Influence {
	base := m.Scale*m.logOdds(x) + m.Shift
	y := slices.Clone(x)
	var out []Influence
	for f := range m.Features {
		if x[f] == 0 {
			continue
		}
		y[f] = 0
		if d := base - (m.Scale*m.logOdds(y) + m.Shift); d != 0 {
			out = append(out, Influence{Feature: m.Features[f], Value: x[f], LogOdds: d})
		}
		y[f] = x[f]
	}
	slices.SortStableFunc(out, func(a, b Influence) int { return cmpAbs(b.LogOdds, a.LogOdds) })
	return out[:min(n, len(out))]
}

// cmpAbs compares |a| and |b|.
func cmpAbs(a, b float64) int {
	switch a, b = math.Abs(a), math.Abs(b); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
