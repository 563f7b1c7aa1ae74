package retriever

import (
	"strings"
	"testing"
	"time"
)

func TestTraceString(t *testing.T) {
	tr := Trace{Skipped: "empty message", Declined: "no candidate above the threshold", Probability: 0.3,
		UnknownNames: []string{"Yahoo"}, Queries: []string{"膝の調子", "走った\n膝の調子"}, KNNHits: []int{20, 18},
		BM25Hits: []int{3}, BM25Match: []string{`"膝" OR "調子"`}, Prepare: 1500 * time.Microsecond, Total: 4 * time.Millisecond,
		Neighbors: 2, NeighborsAdded: 1, Picked: 1}
	s := tr.String()
	for _, want := range []string{"skipped: empty message\n", "declined: no candidate", "unknown names: Yahoo\n", "prepare 1.500ms",
		"total 4.000ms", "neighbours 2 (1 added)", "q1: 膝の調子\n      knn 20 hits, bm25 3 hits, match \"膝\" OR \"調子\"\n",
		"q2: 走った 膝の調子\n      knn 18 hits\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("trace lacks %q:\n%s", want, s)
		}
	}
	// A declined decision shows why, not the probability.
	if strings.Contains(s, "relevance model:") || strings.Contains(s, "degraded") {
		t.Errorf("trace shows what did not happen:\n%s", s)
	}
	if s := (Trace{Probability: 0.87}).String(); !strings.Contains(s, "relevance model: 0.870") {
		t.Errorf("probability missing:\n%s", s)
	}
}
