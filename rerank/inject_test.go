package rerank

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/probabilities.golden")

// TestInject: a retrieval injects when one of its first candidates is
// probably relevant, and then every candidate of its own level; else nothing.
// The first pick and any as probable as a retrieval must be are High.
func TestInject(t *testing.T) {
	scored := []Scored{{Candidate: Candidate{ID: 1}}, {Candidate: Candidate{ID: 2}}, {Candidate: Candidate{ID: 3}}}
	in := Inject{Threshold: 0.5, Level: 0.2, AnyDepth: 2}
	sel := Selection{MaxResults: 5}
	ids := func(ps []Pick) (out []int64) {
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out
	}
	// 1 − 0.7·0.6 = 0.58 ≥ 0.5: the two of level 0.2 or more.
	got := in.Select(scored, []float64{0.3, 0.4, 0.1}, sel)
	if len(got) != 2 || got[0].ID != 1 || got[1].ID != 2 {
		t.Fatalf("picks %v, want 1 2", ids(got))
	}
	if got[0].Relevance != High || got[1].Relevance != Medium || got[0].Probability != 0.3 || got[1].Probability != 0.4 {
		t.Errorf("picks %+v, want High 0.3 then Medium 0.4", got)
	}
	if !strings.HasPrefix(got[1].Reason(), "relevance model: p=0.400; heuristic rerank:") {
		t.Errorf("reason %q", got[1].Reason())
	}
	// 1 − 0.9·0.8 = 0.28: nothing, though the third alone is 0.45.
	o := Options{Inject: in, Select: sel}
	if got, why := o.Decide(scored, nil, func() []float64 { return []float64{0.1, 0.2, 0.45} }); got != nil || !strings.Contains(why, "0.280") {
		t.Errorf("picks %v, declined %q: want none, at 0.280 (only the first AnyDepth count)", ids(got), why)
	}
	got = in.Select(scored, []float64{0.2, 0.9, 0.6}, sel)
	if len(got) != 3 || got[0].Relevance != High || got[1].Relevance != High || got[2].Relevance != High {
		t.Errorf("picks %+v, want three High: the first, and two of 0.5 or more", got)
	}
	if got := in.Select(scored, []float64{0.9, 0.1, 0.1}, sel); len(got) != 1 || got[0].Relevance != High {
		t.Errorf("picks %+v, want the first alone, High", got)
	}
	if got := in.Select(scored, nil, sel); got != nil {
		t.Errorf("no probabilities: picks %v", ids(got))
	}
	// MaxPicks bounds the picks within MaxResults; MaxResults within it.
	for _, c := range []struct{ maxPicks, maxResults, want int }{{2, 5, 2}, {0, 5, 3}, {5, 1, 1}} {
		in := in
		in.MaxPicks = c.maxPicks
		if got := in.Select(scored, []float64{0.9, 0.8, 0.7}, Selection{MaxResults: c.maxResults}); len(got) != c.want {
			t.Errorf("MaxPicks %d, MaxResults %d: picks %v, want %d", c.maxPicks, c.maxResults, ids(got), c.want)
		}
	}
}

// TestInjectValidate: the decision's fields are checked, and a threshold
// without a model is an error, not a silent rule-based decision.
func TestInjectValidate(t *testing.T) {
	m, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		in   Inject
		want string // in the error; "" for none
	}{
		{Inject{}, ""},
		{DefaultOptions().Inject, ""},
		{Inject{Model: m, Threshold: 1.2, Depth: 10}, "Rank.Inject.Threshold is 1.2"},
		{Inject{Model: m, Level: -0.1, Depth: 10}, "Rank.Inject.Level is -0.1"},
		{Inject{Model: m, Threshold: 0.4}, "Rank.Inject.Depth is 0"},
		{Inject{Threshold: 0.4, Depth: 10}, "Rank.Inject.Model is nil"},
		{Inject{Model: m, AnyDepth: -1, Depth: 10}, "AnyDepth (-1)"},
	} {
		o := DefaultOptions()
		o.Inject = tt.in
		err := o.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: %v", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: error %v, want one with %q", tt.in, err, tt.want)
		}
	}
	if ReferenceOptions().Inject.On() {
		t.Error("the reference preset decides by a model; it keeps its rules")
	}
}

// probabilityCases are fixed feature vectors of the candidates a companion
// meets; the committed model's probabilities for them are golden.
func probabilityCases() []struct {
	name   string
	scored []Scored
	i      int
	s      Signals
} {
	strong := Scored{Candidate: Candidate{Parts: Parts{RRFNorm: 1, Lex: 0.3, LexMessage: 0.35, Coverage: 0.9, Proximity: 0.7, Cosine: 0.6}}, Final: 1.2}
	middling := Scored{Candidate: Candidate{Parts: Parts{RRFNorm: 0.9, Lex: 0.1, LexMessage: 0.1, Coverage: 0.45, Proximity: 0.2, Cosine: 0.3}}, Final: 0.8}
	weak := Scored{Candidate: Candidate{Parts: Parts{RRFNorm: 0.8, Lex: 0.02, LexMessage: 0.02, Coverage: 0.1, Cosine: 0.1}}, Final: 0.5}
	window := weak
	window.InWindow = true
	ja := Signals{Strength: 0.6, Terms: 5, Kana: 0.6, Han: 0.4}
	en := Signals{Strength: 1, Terms: 6, Latin: 1}
	named := ja
	named.UnknownNames = 1
	return []struct {
		name   string
		scored []Scored
		i      int
		s      Signals
	}{
		{"ja strong first", []Scored{strong, middling, weak}, 0, ja},
		{"ja middling second", []Scored{strong, middling, weak}, 1, ja},
		{"ja weak third", []Scored{strong, middling, weak}, 2, ja},
		{"ja middling first", []Scored{middling, weak}, 0, ja},
		{"ja weak first", []Scored{weak, weak}, 0, ja},
		{"ja weak first in window", []Scored{window, weak}, 0, ja},
		{"ja strong first, unknown name", []Scored{strong, middling}, 0, named},
		{"en strong first", []Scored{strong, middling, weak}, 0, en},
		{"en weak first", []Scored{weak, weak}, 0, en},
	}
}

// TestDefaultModel: the committed model loads, gives the golden
// probabilities (testdata/probabilities.golden; -update rewrites it after a
// refit) and orders the fixed cases as a reader would.
func TestDefaultModel(t *testing.T) {
	m, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Trees) == 0 || m.About["command"] == nil {
		t.Fatalf("the model has %d trees and no command in about: %v", len(m.Trees), m.About)
	}
	p := map[string]float64{}
	var b strings.Builder
	for _, c := range probabilityCases() {
		p[c.name] = m.Probability(Features(c.scored, c.i, c.s, nil))
		fmt.Fprintf(&b, "%-32s %.4f\n", c.name, p[c.name])
	}
	path := filepath.Join("testdata", "probabilities.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if b.String() != string(want) {
		t.Errorf("probabilities differ from %s (refit? run with -update and review):\ngot:\n%swant:\n%s", path, b.String(), want)
	}
	for _, o := range [][2]string{
		{"ja strong first", "ja weak first"},
		{"ja strong first", "ja middling second"},
		{"ja middling second", "ja weak third"},
		{"ja strong first", "ja strong first, unknown name"},
		{"en strong first", "en weak first"},
	} {
		if p[o[0]] <= p[o[1]] {
			t.Errorf("P(%s) = %.4f, not above P(%s) = %.4f", o[0], p[o[0]], o[1], p[o[1]])
		}
	}
	if p["ja strong first"] < DefaultInjectThreshold || p["ja weak first"] >= DefaultInjectThreshold {
		t.Errorf("strong %.4f, weak %.4f: want the threshold %.2f between them", p["ja strong first"], p["ja weak first"], DefaultInjectThreshold)
	}
}

// BenchmarkInject is the decision's cost in a retrieval: the probabilities
// of the first ten of sixty candidates and the picks.
func BenchmarkInject(b *testing.B) {
	in := DefaultOptions().Inject
	c := probabilityCases()[0]
	scored := make([]Scored, 60)
	for i := range scored {
		scored[i] = c.scored[i%len(c.scored)]
		scored[i].ID = int64(i)
	}
	sel := DefaultOptions().Select
	b.ReportAllocs()
	for b.Loop() {
		probs := in.Probabilities(scored, c.s)
		in.Select(scored, probs, sel)
	}
}

// TestDecide: the decision's sequence. The gate decides first, and then the
// model's probabilities are never computed; past it the model decides when
// it has probabilities, the rules when it has none.
func TestDecide(t *testing.T) {
	scored := []Scored{{Candidate: Candidate{ID: 1}, Final: 0.9}, {Candidate: Candidate{ID: 2}, Final: 0.5}}
	o := Options{Gate: Gate{UnknownNames: true}, Select: Selection{MaxResults: 5, Medium: 0.6},
		Inject: Inject{Threshold: 0.5, Level: 0.2, AnyDepth: 5}}
	called := 0
	probs := func() []float64 { called++; return []float64{0.9, 0.3} }
	if picks, why := o.Decide(scored, []string{"carolin"}, probs); picks != nil || !strings.Contains(why, "carolin") || called != 0 {
		t.Errorf("unknown name: picks %d, declined %q, probabilities computed %d times; want the gate's no, none computed", len(picks), why, called)
	}
	if picks, why := o.Decide(scored, nil, probs); len(picks) != 2 || why != "" || called != 1 || picks[0].Probability != 0.9 {
		t.Errorf("model: picks %+v, declined %q: want both, by probability", picks, why)
	}
	if picks, why := o.Decide(scored, nil, nil); len(picks) != 1 || why != "" || picks[0].Probability != 0 {
		t.Errorf("rules: picks %+v, declined %q: want the first alone (Medium 0.6)", picks, why)
	}
}

// TestShippedModels: each shipped model loads, says what it was fitted for,
// and ShippedModelFor finds the one fitted for an embedder (the hash one,
// the haystack's learned vectors) and none for any other; the embedder-free
// and semantic models are fitted for kinds of embedder, not for one.
func TestShippedModels(t *testing.T) {
	def, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	terms, err := TermsModel()
	if err != nil {
		t.Fatal(err)
	}
	sem, err := DefaultSemanticModel()
	if err != nil {
		t.Fatal(err)
	}
	lex, err := DefaultLexicalModel()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(terms.FittedFor(), "terms:") || sem.FittedFor() != AnySemantic || lex.FittedFor() != AnyEmbedder {
		t.Fatalf("fitted for: terms %q, semantic %q, lexical %q", terms.FittedFor(), sem.FittedFor(), lex.FittedFor())
	}
	for _, tt := range []struct {
		id   string
		want *Model
	}{
		{def.FittedFor(), def},
		{terms.FittedFor(), terms},
		{"terms:0000000000000000+cjk2/256", nil},
		{AnySemantic, nil},
		{"openai:bge-m3/1024", nil},
	} {
		if got, err := ShippedModelFor(tt.id); err != nil || got != tt.want {
			t.Errorf("ShippedModelFor(%q) = %p, %v; want %p", tt.id, got, err, tt.want)
		}
	}
	// the semantic model never reads an embedder's scale
	for _, tr := range sem.Trees {
		for _, n := range tr.Nodes {
			if n.Feature >= 0 && slices.Contains(scaleFeatures, n.Feature) {
				t.Fatalf("the semantic model splits on %s", FeatureNames[n.Feature])
			}
		}
	}
}

// TestRelativeLevel: with Relative, a candidate far less probable than the
// best one is not picked, however it clears Level; without, it is.
func TestRelativeLevel(t *testing.T) {
	scored := []Scored{{Candidate: Candidate{ID: 1, UserText: "a"}}, {Candidate: Candidate{ID: 2, UserText: "b"}}, {Candidate: Candidate{ID: 3, UserText: "c"}}}
	probs := []float64{0.2, 0.9, 0.5}
	for _, tt := range []struct {
		relative float64
		want     []int64
	}{
		{0, []int64{1, 2, 3}},
		{0.3, []int64{2, 3}}, // 0.2 < 0.3 × 0.9
		{0.6, []int64{2}},    // 0.5 < 0.6 × 0.9
	} {
		in := Inject{Level: 0.12, Relative: tt.relative, MaxPicks: 3}
		var got []int64
		for _, p := range in.Select(scored, probs, Selection{MaxResults: 5}) {
			got = append(got, p.ID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Relative %v: picks %v, want %v", tt.relative, got, tt.want)
		}
	}
}
