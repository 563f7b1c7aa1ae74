package main

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/omoide/omoide/rerank"
)

// TestLeaveOneSuiteOutNeverSeesTheSuite: two suites whose labels follow one
// feature in opposite directions. A model fitted on the other suite only
// must be confidently wrong on the left-out one (a leak of the suite into
// its own fit would give probabilities near one half, or right ones).
func TestLeaveOneSuiteOutNeverSeesTheSuite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var qs []trainQuery
	for _, suite := range []string{"a", "b"} {
		for i := 0; i < 200; i++ {
			q := trainQuery{suite: suite, category: "c", relevant: 1}
			for j := 0; j < 3; j++ {
				x := make([]float64, rerank.NumFeatures)
				x[0] = rng.Float64()
				y := 0.0
				if (x[0] > 0.5) == (suite == "a") {
					y = 1
				}
				q.xs, q.ys = append(q.xs, x), append(q.ys, y)
				q.ranked = append(q.ranked, rerank.Scored{Candidate: rerank.Candidate{ID: int64(i*10 + j + 1), UserText: "x"}})
			}
			qs = append(qs, q)
		}
	}
	fo := rerank.DefaultFitOptions()
	fo.Trees = 20
	cells, eces, err := leaveOneSuiteOut(qs, map[string]bool{}, fo, []float64{0.5}, decisionOptions(0.3), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a", "b"} {
		if eces[s] < 0.5 {
			t.Errorf("suite %s: ECE %.3f of a model fitted on the other suite; want it confidently wrong (> 0.5)", s, eces[s])
		}
	}
	if len(cells) != 4 { // two suites × ("all", "c") × one threshold
		t.Fatalf("%d cells, want 4", len(cells))
	}
	for _, c := range cells {
		if c.Quality.N != 200 {
			t.Errorf("%s/%s judged %d queries, want every one of its 200", c.Suite, c.Category, c.Quality.N)
		}
	}
}

// TestTrainLexical: -lexical fits the embedder-free model on rows whose
// cosine is zeroed (the plain fit's rows have cosines), and the model says
// it is for any embedder.
func TestTrainLexical(t *testing.T) {
	dir := t.TempDir()
	writeSuite(t, dir)
	cosines := func(extra ...string) (nonzero int, m *rerank.Model) {
		tmp := t.TempDir()
		modelPath, rowsPath := filepath.Join(tmp, "m.json"), filepath.Join(tmp, "rows.tsv")
		runBench(t, append([]string{"train", "-suite", dir, "-trees", "5", "-o", modelPath, "-rows", rowsPath}, extra...)...)
		rows, err := os.ReadFile(rowsPath)
		if err != nil {
			t.Fatal(err)
		}
		col := 6 + slices.Index(rerank.FeatureNames, "cosine")
		for _, line := range strings.Split(strings.TrimSpace(string(rows)), "\n")[1:] {
			if f := strings.Split(line, "\t"); f[col] != "0" {
				nonzero++
			}
		}
		b, err := os.ReadFile(modelPath)
		if err != nil {
			t.Fatal(err)
		}
		if m, err = rerank.LoadModel(b); err != nil {
			t.Fatal(err)
		}
		return nonzero, m
	}
	plain, pm := cosines()
	lexical, lm := cosines("-lexical")
	if plain == 0 || lexical != 0 {
		t.Fatalf("rows with a cosine: %d plain, %d with -lexical; want some, then none", plain, lexical)
	}
	if lm.FittedFor() != rerank.AnyEmbedder || lm.About["fitted_with"] == nil || pm.FittedFor() == rerank.AnyEmbedder {
		t.Fatalf("about: lexical %v, plain %v", lm.About, pm.About)
	}
}

// TestDecisionsHonourTheGate: bench train judges a decision as the
// retriever makes it: a message naming what the memory never held is
// declined by the gate (rerank.Gate.UnknownNames), however probable its
// candidates; without the gate the same query injects.
func TestDecisionsHonourTheGate(t *testing.T) {
	q := trainQuery{suite: "s", category: "c", relevant: 0, unknown: []string{"carolin"},
		ranked: []rerank.Scored{{Candidate: rerank.Candidate{ID: 1, UserText: "x"}}},
		xs:     [][]float64{make([]float64, rerank.NumFeatures)}, ys: []float64{0}}
	probs := [][]float64{{0.9}}
	for _, gate := range []bool{true, false} {
		dec := decisionOptions(0.15)
		dec.Gate.UnknownNames = gate
		cells := decisions([]trainQuery{q}, probs, func(trainQuery) bool { return true }, []float64{0.4}, dec)
		if got, want := cells[0].Quality.FalseInject, map[bool]float64{true: 0, false: 1}[gate]; got != want {
			t.Errorf("gate %v: false inject %v, want %v", gate, got, want)
		}
	}
}

// decisionOptions are the default ranking options with the model's picks at
// level, as bench train judges them.
func decisionOptions(level float64) rerank.Options {
	o := rerank.DefaultOptions()
	o.Inject = rerank.Inject{Level: level, MaxPicks: rerank.DefaultInjectMaxPicks, AnyDepth: rerank.DefaultInjectAnyDepth}
	return o
}
