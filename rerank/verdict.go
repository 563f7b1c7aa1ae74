package rerank

import (
	"fmt"
	"slices"

	"github.com/omoide/omoide/ngram"
)

// Fate is what a retrieval did with one candidate: injected it, or why not.
type Fate int

// Fates of a candidate. The decision (Options.Explain) gives every ranked
// candidate one of FateInjected to FateUnjudged; a retriever says FateEcho
// of a candidate it dropped before the ranking.
const (
	FateInjected       Fate = iota + 1 // picked: it goes into the evidence
	FateDeclined                       // the gate or the relevance model declined the whole retrieval
	FateBelowLevel                     // its probability is below Inject.Level
	FateBelowMedium                    // its score is below Selection.Medium (the rules)
	FateFirstBelowHigh                 // the rules' first pick is below Selection.High, so nothing is picked
	FateDuplicate                      // a near-copy of an earlier pick (Selection.DedupeDice)
	FateOverBudget                     // the turn's picks were already made (MaxResults, Inject.MaxPicks)
	FateUnjudged                       // beyond the candidates the relevance model judges (Inject.Depth)
	FateEcho                           // already in the recent conversation (dropped before the ranking)
)

var fateNames = [...]string{FateInjected: "injected", FateDeclined: "declined", FateBelowLevel: "below-level",
	FateBelowMedium: "below-medium", FateFirstBelowHigh: "first-below-high", FateDuplicate: "duplicate",
	FateOverBudget: "over-budget", FateUnjudged: "unjudged", FateEcho: "echo"}

// String returns the fate's name ("injected", "below-level", …), or
// "Fate(n)" for other values.
func (f Fate) String() string {
	if f > 0 && int(f) < len(fateNames) {
		return fateNames[f]
	}
	return fmt.Sprintf("Fate(%d)", int(f))
}

// MarshalText writes the fate's name; an unknown Fate is an error.
func (f Fate) MarshalText() ([]byte, error) {
	if f <= 0 || int(f) >= len(fateNames) {
		return nil, fmt.Errorf("rerank: fate %d has no name", int(f))
	}
	return []byte(f.String()), nil
}

// UnmarshalText reads a fate's name.
func (f *Fate) UnmarshalText(b []byte) error {
	if i := slices.Index(fateNames[:], string(b)); i > 0 {
		*f = Fate(i)
		return nil
	}
	return fmt.Errorf("rerank: fate %q: want one of %q", b, fateNames[1:])
}

// Verdict is what the decision did with one candidate and why, in words a
// person tuning the thresholds reads.
type Verdict struct {
	Fate Fate
	Why  string
	// Of is the earlier pick a FateDuplicate copies.
	Of int64
}

// Explain decides as Decide does and also says, for each ranked candidate
// (verdicts[i] is scored[i]'s), what the decision did with it and why. It
// costs what Decide costs and a walk over the candidates past the budget.
func (o Options) Explain(scored []Scored, unknownNames []string, probs func() []float64) (picks []Pick, declined string, verdicts []Verdict) {
	verdicts = make([]Verdict, len(scored))
	picks, declined = o.decide(scored, unknownNames, probs, verdicts)
	return picks, declined, verdicts
}

// explainer records the verdicts of a walk; a nil one records nothing.
type explainer []Verdict

func (x explainer) set(i int, f Fate, format string, args ...any) {
	if x != nil {
		x[i] = Verdict{Fate: f, Why: fmt.Sprintf(format, args...)}
	}
}

// walkExplained is walk that, with verdicts, says what it did with each
// candidate: one it does not keep is told by below(i), and it goes on past
// the budget to tell a candidate that would have been picked (FateOverBudget)
// from one that would not.
func walkExplained(scored []Scored, o Selection, keep func(i int) bool, below func(i int) (Fate, string), x explainer) []Pick {
	var picks []Pick
	for i, s := range scored {
		full := len(picks) >= o.MaxResults
		if full && x == nil {
			break
		}
		if !keep(i) {
			if x != nil {
				f, why := below(i)
				x.set(i, f, "%s", why)
			}
			continue
		}
		if o.DedupeDice > 0 {
			if j := slices.IndexFunc(picks, func(p Pick) bool {
				return p.Grams.Len() > 0 && s.Grams.Len() > 0 && ngram.Dice(p.Grams, s.Grams) >= o.DedupeDice
			}); j >= 0 {
				if x != nil {
					x.set(i, FateDuplicate, "a near-copy of episode %d, picked before it (trigram Dice %.2f, at least %.2f)",
						picks[j].ID, ngram.Dice(picks[j].Grams, s.Grams), o.DedupeDice)
					x[i].Of = picks[j].ID
				}
				continue
			}
		}
		if full {
			x.set(i, FateOverBudget, "over the turn's budget: %d picks were already made", o.MaxResults)
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
