package retriever

import (
	"fmt"
	"strings"
	"time"

	"github.com/omoide/omoide/internal/pytext"
)

// String renders the trace for people, a line a fact, as "omoide retrieve"
// prints it: what was skipped, clipped or declined, the time of each stage,
// the counts, and each query with its hits.
func (t Trace) String() string {
	var b strings.Builder
	for _, l := range []struct{ label, value string }{
		{"skipped", t.Skipped}, {"clipped", t.Clipped}, {"degraded", t.Degraded}, {"time window", t.Window},
		{"decision", t.Decision}, {"declined", t.Declined}, {"unknown names", strings.Join(t.UnknownNames, ", ")},
	} {
		if l.value != "" {
			fmt.Fprintf(&b, "%s: %s\n", l.label, l.value)
		}
	}
	if t.Declined == "" && t.Probability > 0 {
		fmt.Fprintf(&b, "relevance model: %.3f that one of the first candidates is relevant\n", t.Probability)
	}
	fmt.Fprintf(&b, "trace: prepare %s  embed %s  knn %s  bm25 %s  fuse %s  fetch %s  rerank %s  total %s\n",
		ms(t.Prepare), ms(t.Embed), ms(t.KNN), ms(t.BM25), ms(t.Fuse), ms(t.Fetch), ms(t.Rerank), ms(t.Total))
	fmt.Fprintf(&b, "       candidates %d  fetched %d  echoes %d  neighbours %d (%d added)  gated %d  picked %d\n",
		t.Candidates, t.Fetched, t.Echoes, t.Neighbors, t.NeighborsAdded, t.Gated, t.Picked)
	for i, q := range t.Queries {
		fmt.Fprintf(&b, "  q%d: %s\n", i+1, pytext.Clip(q, 80))
		var parts []string
		if i < len(t.KNNHits) {
			parts = append(parts, fmt.Sprintf("knn %d hits", t.KNNHits[i]))
		}
		if i < len(t.BM25Hits) {
			parts = append(parts, fmt.Sprintf("bm25 %d hits", t.BM25Hits[i]))
		}
		if i < len(t.BM25Match) {
			parts = append(parts, "match "+pytext.Clip(t.BM25Match[i], 80))
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "      %s\n", strings.Join(parts, ", "))
		}
	}
	return b.String()
}

// ms formats d in milliseconds to the microsecond: "1.234ms".
func ms(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d.Microseconds())/1000)
}
