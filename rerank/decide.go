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
	return o.decide(scored, unknownNames, probs, nil)
}

// decide is Decide, saying what it did with each candidate when x is not
// nil (Explain).
func (o Options) decide(scored []Scored, unknownNames []string, probs func() []float64, x explainer) (picks []Pick, declined string) {
	declineAll := func(why string) {
		for i := range scored {
			x.set(i, FateDeclined, "nothing is injected: %s", why)
		}
	}
	if why := o.Gate.Decline(scored, unknownNames); why != "" {
		declineAll(why)
		return nil, why
	}
	if probs == nil {
		return selectRules(scored, o.Select, x), ""
	}
	ps := probs()
	if p := o.Inject.Any(ps); len(ps) > 0 && p < o.Inject.Threshold {
		why := fmt.Sprintf("the relevance model gives %.3f that one of the first candidates is relevant, below %.2f", p, o.Inject.Threshold)
		declineAll(why)
		return nil, why
	}
	return o.Inject.selectExplained(scored, ps, o.Select, x), ""
}
