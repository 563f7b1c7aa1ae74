package rerank

import "fmt"

// Decide is a retrieval's decision, the one home of its sequence: the Gate
// first (the names in unknownNames that the memory never held, the
// thresholds); then, when probs is not nil, the relevance model's
// probabilities of the first candidates (probs(), called only past the
// gate: Inject.Probabilities), the retrieval's (Inject.Any) against
// Inject.Threshold and the picks by probability (Inject.Select); with a nil
// probs, the rules' picks (Select). It returns the picks, or none and why
// nothing is injected ("" when the picks are simply none).
func (o Options) Decide(scored []Scored, unknownNames []string, probs func() []float64) (picks []Pick, declined string) {
	if why := o.Gate.Decline(scored, unknownNames); why != "" {
		return nil, why
	}
	if probs == nil {
		return Select(scored, o.Select), ""
	}
	ps := probs()
	if p := o.Inject.Any(ps); len(ps) > 0 && p < o.Inject.Threshold {
		return nil, fmt.Sprintf("the relevance model gives %.3f that one of the first candidates is relevant, below %.2f", p, o.Inject.Threshold)
	}
	return o.Inject.Select(scored, ps, o.Select), ""
}
