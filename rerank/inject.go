package rerank

import (
	_ "embed"
	"fmt"
	"slices"
	"sync"
)

// The relevance model's decision in the default preset (docs/quality.md,
// "The inject decision").
const (
	DefaultInjectThreshold = 0.40 // the retrieval's probability that one of its first candidates is relevant
	DefaultInjectLevel     = 0.12
	DefaultInjectRelative  = 0.2 // a pick under a fifth of the best candidate's probability is a stranger beside it (docs/quality.md, "Everyday chat")
	DefaultInjectMaxPicks  = 3   // a turn's budget: the third pick is rarely needed, the fourth and fifth less
	DefaultInjectAnyDepth  = DefaultMaxResults
	DefaultInjectDepth     = 2 * DefaultMaxResults // the candidates the model was fitted on
)

// Inject decides by probability what a retrieval injects. Model gives each
// of the first Depth candidates its P(relevant) (Features, Model.Probability);
// the retrieval injects when the probability that one of its first AnyDepth
// candidates is relevant, 1 − Π(1 − p) (Any), reaches Threshold, and then the
// candidates whose own probability reaches Level and Relative times the best
// candidate's, near-copies skipped and at most MaxPicks. One threshold on each candidate alone is too
// strict for conversations, whose relevant episodes are several, each of
// moderate probability (docs/quality.md).
//
// With a Model, Inject replaces the Gate's thresholds and Selection's Medium
// and High as the decision; a nil Model turns it off and they decide, as in
// the reference preset.
type Inject struct {
	Model     *Model
	Threshold float64 // the knob: precision against recall; 0 injects whenever a candidate reaches Level
	Level     float64 // the least probability of an injected candidate; 0 admits every candidate
	MaxPicks  int     // at most this many picks, within Selection.MaxResults; 0 adds no bound of its own
	// Relative is the least share of the most probable candidate's
	// probability an injected candidate must reach beside Level: a
	// candidate far less likely than the best one is a stranger beside it
	// (a person minds it), however it clears Level. 0 bounds nothing.
	Relative float64
	// AnyDepth is how many of the first candidates make up the retrieval's
	// probability; 0: all of the first Depth.
	AnyDepth int
	// Depth is how many of the first candidates the model judges: those it
	// was fitted on (cmd/bench train -top); must be set with a Model.
	Depth int
}

//go:embed model.json
var modelJSON []byte

// DefaultModel returns the relevance model fitted for the default preset and
// the hash embedder (model.json, made by the command in its "about"). It is
// loaded once, on first use, and shared: a Model is read-only.
var DefaultModel = sync.OnceValues(func() (*Model, error) { return LoadModel(modelJSON) })

//go:embed model-lexical.json
var lexicalModelJSON []byte

// DefaultLexicalModel returns the embedder-free relevance model: fitted as
// DefaultModel, on the same suites, without the features an embedder's
// scale sets (WithoutVectors; FittedFor is AnyEmbedder). A retriever decides
// with it when the store's embedder is not the one its model was fitted for
// (retriever.New): a cosine of another embedder means another thing.
var DefaultLexicalModel = sync.OnceValues(func() (*Model, error) { return LoadModel(lexicalModelJSON) })

//go:embed model-semantic.json
var semanticModelJSON []byte

// DefaultSemanticModel returns the relevance model of semantic embedders:
// fitted on the dev suites and the paraphrase labels (cmd/bench paraphrase)
// with the learned word vectors of the haystack, without the features an
// embedder's scale sets (WithoutScale; FittedFor is AnySemantic), so that it
// reads how a candidate's cosine stands among the candidates' and not what
// the cosine is. A retriever decides with it for a semantic store whose
// embedder no shipped model was fitted for (retriever.ModelFor).
var DefaultSemanticModel = sync.OnceValues(func() (*Model, error) { return LoadModel(semanticModelJSON) })

//go:embed model-terms.json
var termsModelJSON []byte

// TermsModel returns the relevance model fitted for the word vectors that
// "omoide learn" writes from the haystack (RealPersonaChat) with its default
// flags, deterministically the same file (its fingerprint in FittedFor): a
// store built with them (-embedder terms) is decided for by it
// (ShippedModelFor).
var TermsModel = sync.OnceValues(func() (*Model, error) { return LoadModel(termsModelJSON) })

// shippedModels are the models fitted for an embedder that the module ships
// beside DefaultModel, in the order they are looked up.
var shippedModels = []func() (*Model, error){TermsModel}

// Shipped reports whether m is one of the models the module ships
// (DefaultModel, DefaultLexicalModel, DefaultSemanticModel, ShippedModelFor's): a retriever
// lets it give way to the one that suits its store's embedder.
func Shipped(m *Model) bool {
	for _, f := range append([]func() (*Model, error){DefaultModel, DefaultLexicalModel, DefaultSemanticModel}, shippedModels...) {
		if sm, err := f(); err == nil && sm == m {
			return true
		}
	}
	return false
}

// ShippedModelFor returns the shipped model fitted for the embedder whose
// identity is id (DefaultModel for the hash embedder), nil when none is.
func ShippedModelFor(id string) (*Model, error) {
	for _, f := range append([]func() (*Model, error){DefaultModel}, shippedModels...) {
		m, err := f()
		if err != nil {
			return nil, err
		}
		if m.FittedFor() == id {
			return m, nil
		}
	}
	return nil, nil
}

// defaultInject is the default preset's decision, with the embedded model.
func defaultInject() Inject {
	m, err := DefaultModel()
	in := Inject{Model: m, Threshold: DefaultInjectThreshold, Level: DefaultInjectLevel, Relative: DefaultInjectRelative,
		MaxPicks: DefaultInjectMaxPicks, AnyDepth: DefaultInjectAnyDepth, Depth: DefaultInjectDepth}
	if err != nil {
		in.Model = nil // Validate reports it
	}
	return in
}

// On reports whether the model decides.
func (in Inject) On() bool { return in.Model != nil }

func (in Inject) validate() error {
	for _, v := range []struct {
		name string
		val  float64
	}{{"Threshold", in.Threshold}, {"Level", in.Level}, {"Relative", in.Relative}} {
		if v.val < 0 || v.val > 1 {
			return fmt.Errorf("option Rank.Inject.%s is %v, must be a probability in [0, 1]", v.name, v.val)
		}
	}
	if in.AnyDepth < 0 || in.Depth < 0 || in.MaxPicks < 0 {
		return fmt.Errorf("option Rank.Inject.AnyDepth (%d), Depth (%d) and MaxPicks (%d) must be >= 0", in.AnyDepth, in.Depth, in.MaxPicks)
	}
	if in.Model == nil && (in.Threshold > 0 || in.Level > 0 || in.Depth > 0) {
		if _, err := DefaultModel(); err != nil {
			return fmt.Errorf("option Rank.Inject.Model is nil: the embedded model does not load: %w", err)
		}
		return fmt.Errorf("option Rank.Inject.Model is nil while its threshold, level or depth is set")
	}
	if in.Model != nil && in.Depth == 0 {
		return fmt.Errorf("option Rank.Inject.Depth is 0, must be set with a Model (the candidates it was fitted on)")
	}
	return nil
}

// Probabilities returns the model's P(relevant) of the first Depth of the
// ranked candidates, whose retrieval measured s; nil without a Model.
func (in Inject) Probabilities(scored []Scored, s Signals) []float64 {
	if in.Model == nil || len(scored) == 0 {
		return nil
	}
	n := len(scored)
	if in.Depth > 0 {
		n = min(n, in.Depth)
	}
	probs := make([]float64, n)
	var x []float64
	for i := range probs {
		x = Features(scored, i, s, x)
		probs[i] = in.Model.Probability(x)
	}
	return probs
}

// Any returns the probability that one of the first AnyDepth candidates is
// relevant, their probabilities (probs[i]: the i-th candidate's) taken as
// independent.
func (in Inject) Any(probs []float64) float64 {
	if in.AnyDepth > 0 {
		probs = probs[:min(len(probs), in.AnyDepth)]
	}
	none := 1.0
	for _, p := range probs {
		none *= 1 - p
	}
	return 1 - none
}

// Select picks, in order among the first len(probs) candidates, those whose
// probability reaches Level, near-copies of an earlier pick skipped and at
// most MaxPicks and o.MaxResults. Whether the retrieval injects at all (Any
// against Threshold) is Options.Decide's to test. The first pick is High (it
// carries the retrieval's decision), and so is any other whose own
// probability reaches Threshold; the rest are Medium.
func (in Inject) Select(scored []Scored, probs []float64, o Selection) []Pick {
	return in.selectExplained(scored, probs, o, nil)
}

// selectExplained is Select, saying what it did with each candidate when x
// is not nil.
func (in Inject) selectExplained(scored []Scored, probs []float64, o Selection, x explainer) []Pick {
	if len(probs) == 0 {
		return nil
	}
	if in.MaxPicks > 0 {
		o.MaxResults = min(o.MaxResults, in.MaxPicks)
	}
	level := in.Level
	if in.Relative > 0 {
		level = max(level, in.Relative*slices.Max(probs))
	}
	picks := walkExplained(scored[:min(len(scored), len(probs))], o, func(i int) bool { return probs[i] >= level },
		func(i int) (Fate, string) {
			if level > in.Level {
				return FateBelowLevel, fmt.Sprintf("its probability %.3f is below the level %.3f, %.2f of the best candidate's (%.3f)", probs[i], level, in.Relative, level/in.Relative)
			}
			return FateBelowLevel, fmt.Sprintf("its probability %.3f is below the level %.2f an injected memory must reach", probs[i], in.Level)
		}, x)
	for i := range picks {
		p := &picks[i]
		p.Probability = probs[p.at]
		if p.Probability >= in.Threshold {
			p.Relevance = High
		}
		x.set(p.at, FateInjected, "injected (%s): its probability %.3f reaches the level %.2f", p.Relevance, p.Probability, in.Level)
	}
	for i := len(probs); i < len(scored); i++ {
		x.set(i, FateUnjudged, "beyond the first %d candidates, which the relevance model judges", len(probs))
	}
	return picks
}
