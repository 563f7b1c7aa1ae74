package main

import (
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"
)

// The ranking metrics take a ranked list of external ids (best first) and the
// set of relevant ids; relevance is binary.

// hitsAt returns |relevant ∩ top k|: how many of the first k ids are
// relevant.
func hitsAt(ranked []string, relevant map[string]bool, k int) int {
	hit := 0
	for i, id := range ranked {
		if i >= k {
			break
		}
		if relevant[id] {
			hit++
		}
	}
	return hit
}

// recallAt returns |relevant ∩ top k| / |relevant|, or 0 when nothing is
// relevant.
func recallAt(ranked []string, relevant map[string]bool, k int) float64 {
	if len(relevant) == 0 {
		return 0
	}
	return float64(hitsAt(ranked, relevant, k)) / float64(len(relevant))
}

// mrrAt returns 1/rank of the first relevant id within the top k (ranks from
// 1), or 0 when there is none.
func mrrAt(ranked []string, relevant map[string]bool, k int) float64 {
	for i, id := range ranked {
		if i >= k {
			break
		}
		if relevant[id] {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// ndcgAt returns the binary-gain nDCG of the top k: DCG = Σ 1/log2(rank+1)
// over the relevant ids among the top k, divided by the ideal DCG of
// min(|relevant|, k) relevant ids at ranks 1, 2, ….
func ndcgAt(ranked []string, relevant map[string]bool, k int) float64 {
	if len(relevant) == 0 {
		return 0
	}
	dcg := 0.0
	for i, id := range ranked {
		if i >= k {
			break
		}
		if relevant[id] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	idcg := 0.0
	for i := range min(len(relevant), k) {
		idcg += 1 / math.Log2(float64(i+2))
	}
	return dcg / idcg
}

// anyIn reports whether one of the first k ids is relevant.
func anyIn(ranked []string, relevant map[string]bool, k int) bool {
	return hitsAt(ranked, relevant, k) > 0
}

// outcome is what one query's retrieval produced, for the aggregates.
type outcome struct {
	relevant map[string]bool
	// acceptable may be injected without a person minding (dataset.Query
	// Acceptable): neither a hit nor a false inject of agreement.
	acceptable map[string]bool
	ranked     []string // external ids of the reranked candidates, best first
	picked     []string // external ids of the selected hits
	inject     bool     // memorypack.ShouldInject of the hits
	parts      []parts  // score parts of the first candidates, for -ranks
}

// injected returns the external ids of the episodes the companion receives:
// the picks when the section is injected, none otherwise.
func (o outcome) injected() []string {
	if o.inject {
		return o.picked
	}
	return nil
}

// agrees reports whether a person would agree with what the companion
// receives: nothing outside the relevant and acceptable episodes, and, when
// an episode is relevant, at least one of them.
func (o outcome) agrees() bool {
	hit := false
	for _, id := range o.injected() {
		switch {
		case o.relevant[id]:
			hit = true
		case !o.acceptable[id]:
			return false
		}
	}
	return hit || len(o.relevant) == 0
}

// parts are one candidate's score parts, for -ranks.
type parts struct {
	Rank      int     `json:"rank"`
	Relevant  bool    `json:"relevant,omitempty"`
	Score     float64 `json:"score"`
	RRFNorm   float64 `json:"rrf_norm"`
	Lex       float64 `json:"lex"`
	Rec       float64 `json:"rec"`
	Coverage  float64 `json:"coverage"`
	Proximity float64 `json:"proximity"`
	Cosine    float64 `json:"cosine"`
}

// quality is the aggregate of a set of outcomes. Ranking metrics, Inject,
// DeliveredRecall and EvidencePrecision average over the N queries that have
// relevant episodes; FalseInject over the N0 queries whose answer is to inject
// nothing; MeanInjected over all N + N0 queries.
//
// DeliveredRecall and EvidencePrecision measure what is delivered: the
// injected episodes (outcome.injected), the picks of a query whose section is
// injected and none of one whose section is not. A rate whose denominator is
// 0 (no query, or nothing injected for EvidencePrecision) is 0, never NaN, so
// the JSON stays valid and has every field.
type quality struct {
	N                 int     `json:"n"`
	N0                int     `json:"n_no_relevant"`
	R1                float64 `json:"recall_at_1"`
	R5                float64 `json:"recall_at_5"`
	R10               float64 `json:"recall_at_10"`
	MRR10             float64 `json:"mrr_at_10"`
	NDCG10            float64 `json:"ndcg_at_10"`
	Inject            float64 `json:"inject_rate"`           // injected, among queries with relevant episodes
	InjectTop5        float64 `json:"inject_rate_top5"`      // injected, among those whose relevant episode is in the top 5
	NTop5             int     `json:"n_top5"`                // queries with a relevant episode in the top 5
	InjectHit         float64 `json:"inject_hit_rate"`       // injected with a relevant episode among the picks
	FalseInject       float64 `json:"false_inject_rate"`     // injected, among queries with nothing relevant
	DeliveredRecall   float64 `json:"delivered_recall"`      // mean |relevant ∩ injected| / |relevant|: 0 for a query not injected
	EvidencePrecision float64 `json:"evidence_precision"`    // Σ|relevant ∩ injected| / Σ|injected|: the injected that are relevant
	MeanInjected      float64 `json:"mean_injected"`         // injected episodes per query, the N0 queries included
	Agreement         float64 `json:"agreement"`             // queries whose injected episodes a person would agree with (outcome.agrees), of all
	Queries           int     `json:"queries"`               // N + N0
	QueryP50          float64 `json:"query_p50_ms,omitzero"` // retrieval time
}

// aggregate computes the quality of outcomes.
func aggregate(outs []outcome) quality {
	var q quality
	var inj, injTop5, injHit, falseInj int
	var delivered, injectedN, injectedAll int // episodes: relevant and injected; injected, on the N queries; injected, on all
	agree := 0
	for _, o := range outs {
		injected := o.injected()
		injectedAll += len(injected)
		if o.agrees() {
			agree++
		}
		if len(o.relevant) == 0 {
			q.N0++
			if o.inject {
				falseInj++
			}
			continue
		}
		q.N++
		q.R1 += recallAt(o.ranked, o.relevant, 1)
		q.R5 += recallAt(o.ranked, o.relevant, 5)
		q.R10 += recallAt(o.ranked, o.relevant, 10)
		q.MRR10 += mrrAt(o.ranked, o.relevant, 10)
		q.NDCG10 += ndcgAt(o.ranked, o.relevant, 10)
		q.DeliveredRecall += recallAt(injected, o.relevant, len(injected))
		delivered += hitsAt(injected, o.relevant, len(injected))
		injectedN += len(injected)
		if o.inject {
			inj++
			if anyIn(o.picked, o.relevant, len(o.picked)) {
				injHit++
			}
		}
		if anyIn(o.ranked, o.relevant, 5) {
			q.NTop5++
			if o.inject {
				injTop5++
			}
		}
	}
	q.Queries = q.N + q.N0
	if q.N > 0 {
		n := float64(q.N)
		q.R1, q.R5, q.R10, q.MRR10, q.NDCG10 = q.R1/n, q.R5/n, q.R10/n, q.MRR10/n, q.NDCG10/n
		q.Inject = float64(inj) / n
		q.InjectHit = float64(injHit) / n
		q.DeliveredRecall /= n
	}
	q.InjectTop5 = rate(injTop5, q.NTop5)
	q.FalseInject = rate(falseInj, q.N0)
	q.EvidencePrecision = rate(delivered, injectedN)
	q.MeanInjected = rate(injectedAll, q.Queries)
	q.Agreement = rate(agree, q.Queries)
	return q
}

// rate returns num/den, or 0 when den is 0.
func rate(num, den int) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

// percentile returns the p-th percentile (0 < p <= 100) of ds by the
// nearest-rank method: the smallest value such that at least p% of the values
// are at or below it (gonum's stat.Empirical quantile). It returns 0 for no
// values. ds is not modified.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	x := make([]float64, len(ds))
	for i, d := range ds {
		x[i] = float64(d)
	}
	slices.Sort(x)
	return time.Duration(stat.Quantile(p/100, stat.Empirical, x, nil))
}
