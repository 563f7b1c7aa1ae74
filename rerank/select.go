package rerank

import (
	"fmt"
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
func Select(scored []Scored, o Selection) []Pick { return selectRules(scored, o, nil) }

// selectRules is Select, saying what it did with each candidate when x is
// not nil.
func selectRules(scored []Scored, o Selection, x explainer) []Pick {
	picks := walkExplained(scored, o, func(i int) bool { return scored[i].Final >= o.Medium },
		func(i int) (Fate, string) {
			return FateBelowMedium, fmt.Sprintf("its score %.3f is below the medium threshold %.3f", scored[i].Final, o.Medium)
		}, x)
	if len(picks) > 0 && picks[0].Final < o.High {
		for _, p := range picks {
			x.set(p.at, FateFirstBelowHigh, "the first pick's score %.3f is below the high threshold %.3f, so nothing is injected", picks[0].Final, o.High)
		}
		return nil
	}
	for _, p := range picks {
		x.set(p.at, FateInjected, "injected (%s): its score %.3f reaches the medium threshold %.3f", p.Relevance, p.Final, o.Medium)
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
