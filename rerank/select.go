package rerank

import (
	"fmt"
	"slices"

	"github.com/omoide/omoide/ngram"
)

// Relevance is how strongly a pick bears on the conversation.
type Relevance int

const (
	High   Relevance = iota + 1 // the first pick
	Medium                      // the others
)

// String returns "high" or "medium", or "Relevance(n)" for other values.
func (r Relevance) String() string {
	switch r {
	case High:
		return "high"
	case Medium:
		return "medium"
	}
	return fmt.Sprintf("Relevance(%d)", int(r))
}

// Pick is a selected candidate.
type Pick struct {
	Scored
	Relevance Relevance
}

// Select walks the ranked candidates: it stops at MaxResults picks, skips a
// candidate whose Final is below Medium, and skips one whose n-gram Dice with
// an earlier pick is at least DedupeDice. When nothing is picked or the first
// pick is below High, it returns nothing. The first pick is High, the others
// Medium.
func Select(scored []Scored, o Selection) []Pick {
	picks := walk(scored, o, func(i int) bool { return scored[i].Final >= o.Medium })
	if len(picks) == 0 || picks[0].Final < o.High {
		return nil
	}
	return picks
}

// Inject is the decision by probability (probs[i]: Model.Probability of the
// i-th candidate): a retrieval injects when the probability that one of its
// first AnyDepth candidates is relevant, 1 − Π(1 − p), reaches Threshold,
// and then the candidates whose own probability reaches Level. One threshold
// on each candidate alone is too strict for conversations, whose relevant
// episodes are several, each of moderate probability (docs/quality.md).
type Inject struct {
	Threshold float64 // the knob: precision against recall
	Level     float64 // the least probability of an injected candidate
	AnyDepth  int     // the candidates of the retrieval's probability; 0: all given
}

// Any returns the probability that one of the first AnyDepth candidates is
// relevant, their probabilities taken as independent.
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

// Select walks the first len(probs) candidates as Select does (near-copies
// of an earlier pick skipped, at most MaxResults) and picks those whose
// probability reaches Level, when the retrieval's (Any) reaches Threshold;
// else nothing. The first pick is High, the others Medium.
func (in Inject) Select(scored []Scored, probs []float64, o Selection) []Pick {
	if len(probs) == 0 || in.Any(probs) < in.Threshold {
		return nil
	}
	return walk(scored[:min(len(scored), len(probs))], o, func(i int) bool { return probs[i] >= in.Level })
}

// walk picks, in order, the candidates that keep admits, skipping
// near-copies of an earlier pick, at most MaxResults; the first is High.
func walk(scored []Scored, o Selection, keep func(i int) bool) []Pick {
	var picks []Pick
	for i, s := range scored {
		if len(picks) >= o.MaxResults {
			break
		}
		if !keep(i) {
			continue
		}
		if o.DedupeDice > 0 && slices.ContainsFunc(picks, func(p Pick) bool {
			return p.Grams.Len() > 0 && s.Grams.Len() > 0 && ngram.Dice(p.Grams, s.Grams) >= o.DedupeDice
		}) {
			continue
		}
		rel := Medium
		if len(picks) == 0 {
			rel = High
		}
		picks = append(picks, Pick{Scored: s, Relevance: rel})
	}
	return picks
}
