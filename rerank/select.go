package rerank

import (
	"fmt"
	"slices"

	"github.com/omoide/omoide/ngram"
)

// Relevance is how strongly a pick bears on the conversation.
type Relevance int

const (
	High   Relevance = iota + 1 // the first pick, or (Inject) one as probable as a retrieval must be
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

// MarshalText writes "high" or "medium"; an unknown Relevance is an error.
func (r Relevance) MarshalText() ([]byte, error) {
	if r != High && r != Medium {
		return nil, fmt.Errorf("rerank: relevance %d has no name", int(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText reads "high" or "medium".
func (r *Relevance) UnmarshalText(b []byte) error {
	switch string(b) {
	case "high":
		*r = High
	case "medium":
		*r = Medium
	default:
		return fmt.Errorf("rerank: relevance %q: want high or medium", b)
	}
	return nil
}

// Pick is a selected candidate.
type Pick struct {
	Scored
	Relevance Relevance
	// Probability is the relevance model's P(relevant) of the candidate
	// (Inject), or 0 when the rules picked it.
	Probability float64
	at          int // its position in the ranked list
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

// Reason says why the pick was made: the relevance model's probability, when
// it decided, and the score's parts (Scored.Reason).
func (p Pick) Reason() string {
	if p.Probability > 0 {
		return fmt.Sprintf("relevance model: p=%.3f; %s", p.Probability, p.Scored.Reason())
	}
	return p.Scored.Reason()
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
		picks = append(picks, Pick{Scored: s, Relevance: rel, at: i})
	}
	return picks
}
