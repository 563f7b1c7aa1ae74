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
	var picks []Pick
	for _, s := range scored {
		if len(picks) >= o.MaxResults {
			break
		}
		if s.Final < o.Medium {
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
	if len(picks) == 0 || picks[0].Final < o.High {
		return nil
	}
	return picks
}
