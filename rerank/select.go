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

// SelectProbable is the selection by probability: it walks the first
// len(probs) candidates, picks those whose probability of being relevant
// (probs[i], Model.Probability) reaches threshold, skips near-copies of an
// earlier pick (DedupeDice) and stops at MaxResults. Nothing reaching the
// threshold picks nothing. The first pick is High, the others Medium.
func SelectProbable(scored []Scored, probs []float64, threshold float64, o Selection) []Pick {
	return walk(scored[:min(len(scored), len(probs))], o, func(i int) bool { return probs[i] >= threshold })
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
