package retriever

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/rerank"
)

// The JSON of a retrieval, one shape for every reader: "omoide retrieve
// -json", the HTTP API and any Go program. A Hit is its episode's fields and
// its score parts side by side; a Trace's durations are whole microseconds
// (the fields ending in _us); lists are [] rather than null.

// hitJSON is the wire shape of a Hit.
type hitJSON struct {
	ID              int64               `json:"id"`
	ExternalID      string              `json:"external_id,omitempty"`
	User            string              `json:"user"`
	UserText        string              `json:"user_text"`
	ReplyText       string              `json:"reply_text"`
	OccurredAt      time.Time           `json:"occurred_at"`
	Source          string              `json:"source"`
	Kind            episode.Kind        `json:"kind"`
	State           episode.State       `json:"state"`
	Sensitivity     episode.Sensitivity `json:"sensitivity"`
	Relevance       rerank.Relevance    `json:"relevance,omitempty"` // high or medium; absent for a candidate
	Reason          string              `json:"reason,omitempty"`
	Probability     float64             `json:"probability,omitempty"`
	Score           float64             `json:"score"`
	RRF             float64             `json:"rrf"`
	RRFNorm         float64             `json:"rrf_norm"`
	Lex             float64             `json:"lex"`
	Rec             float64             `json:"rec"`
	Coverage        float64             `json:"coverage"`
	Proximity       float64             `json:"proximity"`
	Lacking         float64             `json:"lacking"`
	Cosine          float64             `json:"cosine"`
	LexMessage      float64             `json:"lex_message"`
	Meaning         float64             `json:"meaning,omitempty" doc:"the cosine of the episode's terms' learned vector with the message's, when the server measures meaning"` // measured with Options.Meaning only
	InWindow        bool                `json:"in_window,omitempty"`
	UserCoverage    float64             `json:"user_coverage,omitempty" doc:"coverage by the terms of the episode's user text alone"`
	ContextCoverage float64             `json:"context_coverage,omitempty" doc:"the share of the recent turns' terms (those not in the message) the episode holds"`
	Alone           float64             `json:"alone,omitempty" doc:"the weight of the message's most informative word that this candidate alone holds, over the message's largest"`
	Newer           float64             `json:"newer,omitempty" doc:"the most of its message words one newer candidate holds too"`
	Names           float64             `json:"names,omitempty" doc:"the share of the names the message gives that the episode holds"`
	Rarity          float64             `json:"rarity,omitempty" doc:"how rare in the store the rarest message word the episode holds is, at most 1"`
	Fate            rerank.Fate         `json:"fate,omitempty" doc:"what the decision did with a candidate: injected, declined, below-level, below-medium, first-below-high, duplicate, over-budget or unjudged"`
	Why             string              `json:"why,omitempty" doc:"why, in words, naming the number that decided"`
	DuplicateOf     int64               `json:"duplicate_of,omitempty" doc:"the earlier pick a duplicate copies"`
}

// MarshalJSON writes the episode's fields and the score parts side by side.
func (h Hit) MarshalJSON() ([]byte, error) {
	e := h.Episode
	return json.Marshal(hitJSON{ID: e.ID, ExternalID: e.ExternalID, User: e.User, UserText: e.UserText, ReplyText: e.ReplyText,
		OccurredAt: e.OccurredAt, Source: e.Source, Kind: e.Kind, State: e.State, Sensitivity: e.Sensitivity,
		Relevance: h.Relevance, Reason: h.Reason, Probability: h.Probability, Score: h.Score,
		RRF: h.RRF, RRFNorm: h.RRFNorm, Lex: h.Lex, Rec: h.Rec, Coverage: h.Coverage, Proximity: h.Proximity,
		Lacking: h.Lacking, Cosine: h.Cosine, LexMessage: h.LexMessage, Meaning: h.Meaning, InWindow: h.InWindow,
		UserCoverage: h.UserCoverage, ContextCoverage: h.ContextCoverage, Alone: h.Alone, Newer: h.Newer, Names: h.Names, Rarity: h.Rarity,
		Fate: h.Verdict.Fate, Why: h.Verdict.Why, DuplicateOf: h.Verdict.Of})
}

// JSONShape returns the struct MarshalJSON writes a Hit as, whose fields
// and tags are its JSON (a "doc" tag describes a field), for a program that
// describes the JSON (omoidehttp's OpenAPI schemas).
func (Hit) JSONShape() any { return hitJSON{} }

// UnmarshalJSON reads what MarshalJSON writes.
func (h *Hit) UnmarshalJSON(b []byte) error {
	var j hitJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("hit: %w", err)
	}
	*h = Hit{Episode: episode.Episode{ID: j.ID, ExternalID: j.ExternalID, User: j.User, UserText: j.UserText, ReplyText: j.ReplyText,
		OccurredAt: j.OccurredAt, Source: j.Source, Kind: j.Kind, State: j.State, Sensitivity: j.Sensitivity},
		Relevance: j.Relevance, Reason: j.Reason, Probability: j.Probability, Score: j.Score,
		Parts: rerank.Parts{RRF: j.RRF, RRFNorm: j.RRFNorm, Lex: j.Lex, Rec: j.Rec, Coverage: j.Coverage, Proximity: j.Proximity,
			Lacking: j.Lacking, Cosine: j.Cosine, LexMessage: j.LexMessage, Meaning: j.Meaning, InWindow: j.InWindow,
			UserCoverage: j.UserCoverage, ContextCoverage: j.ContextCoverage, Alone: j.Alone, Newer: j.Newer, Names: j.Names, Rarity: j.Rarity},
		Verdict: rerank.Verdict{Fate: j.Fate, Why: j.Why, Of: j.DuplicateOf}}
	return nil
}

// traceJSON is the wire shape of a Trace.
type traceJSON struct {
	Skipped        string   `json:"skipped,omitempty"`
	Clipped        string   `json:"clipped,omitempty"`
	Degraded       string   `json:"degraded,omitempty"`
	Window         string   `json:"window,omitempty"`
	Declined       string   `json:"declined,omitempty"`
	Probability    float64  `json:"probability,omitempty"`
	Decision       string   `json:"decision,omitempty"`
	UnknownNames   []string `json:"unknown_names,omitempty"`
	Queries        []string `json:"queries"`
	BM25Match      []string `json:"bm25_match"`
	KNNHits        []int    `json:"knn_hits"`
	BM25Hits       []int    `json:"bm25_hits"`
	Candidates     int      `json:"candidates"`
	Fetched        int      `json:"fetched"`
	Echoes         int      `json:"echoes"`
	Neighbors      int      `json:"neighbors"`
	NeighborsAdded int      `json:"neighbors_added"`
	Gated          int      `json:"gated"`
	Picked         int      `json:"picked"`
	PrepareUS      int64    `json:"prepare_us"`
	EmbedUS        int64    `json:"embed_us"`
	KNNUS          int64    `json:"knn_us"`
	BM25US         int64    `json:"bm25_us"`
	FuseUS         int64    `json:"fuse_us"`
	FetchUS        int64    `json:"fetch_us"`
	RerankUS       int64    `json:"rerank_us"`
	TotalUS        int64    `json:"total_us"`
}

// MarshalJSON writes the durations as whole microseconds (prepare_us,
// embed_us, …) and empty lists as [].
func (t Trace) MarshalJSON() ([]byte, error) {
	us := func(d time.Duration) int64 { return d.Microseconds() }
	return json.Marshal(traceJSON{Skipped: t.Skipped, Clipped: t.Clipped, Degraded: t.Degraded, Window: t.Window,
		Declined: t.Declined, Probability: t.Probability, Decision: t.Decision, UnknownNames: t.UnknownNames,
		Queries: nonNil(t.Queries), BM25Match: nonNil(t.BM25Match), KNNHits: nonNil(t.KNNHits), BM25Hits: nonNil(t.BM25Hits),
		Candidates: t.Candidates, Fetched: t.Fetched, Echoes: t.Echoes, Neighbors: t.Neighbors,
		NeighborsAdded: t.NeighborsAdded, Gated: t.Gated, Picked: t.Picked,
		PrepareUS: us(t.Prepare), EmbedUS: us(t.Embed), KNNUS: us(t.KNN), BM25US: us(t.BM25), FuseUS: us(t.Fuse),
		FetchUS: us(t.Fetch), RerankUS: us(t.Rerank), TotalUS: us(t.Total)})
}

// JSONShape returns the struct MarshalJSON writes a Trace as (Hit.JSONShape).
func (Trace) JSONShape() any { return traceJSON{} }

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Trace) UnmarshalJSON(b []byte) error {
	var j traceJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	us := func(n int64) time.Duration { return time.Duration(n) * time.Microsecond }
	*t = Trace{Skipped: j.Skipped, Clipped: j.Clipped, Degraded: j.Degraded, Window: j.Window,
		Declined: j.Declined, Probability: j.Probability, Decision: j.Decision, UnknownNames: j.UnknownNames,
		Queries: j.Queries, BM25Match: j.BM25Match, KNNHits: j.KNNHits, BM25Hits: j.BM25Hits,
		Candidates: j.Candidates, Fetched: j.Fetched, Echoes: j.Echoes, Neighbors: j.Neighbors,
		NeighborsAdded: j.NeighborsAdded, Gated: j.Gated, Picked: j.Picked,
		Prepare: us(j.PrepareUS), Embed: us(j.EmbedUS), KNN: us(j.KNNUS), BM25: us(j.BM25US), Fuse: us(j.FuseUS),
		Fetch: us(j.FetchUS), Rerank: us(j.RerankUS), Total: us(j.TotalUS)}
	return nil
}

// resultJSON is the wire shape of a Result: Ranked and Signals, the
// ranking's working state for cmd/bench, are not part of it.
type resultJSON struct {
	Hits       []Hit `json:"hits"`
	Candidates []Hit `json:"candidates,omitempty"`
	Trace      Trace `json:"trace"`
}

// MarshalJSON writes the hits (always a list), the candidates when the
// request asked for them, and the trace.
func (r Result) MarshalJSON() ([]byte, error) {
	return json.Marshal(resultJSON{Hits: nonNil(r.Hits), Candidates: r.Candidates, Trace: r.Trace})
}

// JSONShape returns the struct MarshalJSON writes a Result as
// (Hit.JSONShape).
func (Result) JSONShape() any { return resultJSON{} }

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Result) UnmarshalJSON(b []byte) error {
	var j resultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("result: %w", err)
	}
	*r = Result{Hits: j.Hits, Candidates: j.Candidates, Trace: j.Trace}
	return nil
}

// nonNil returns s, or an empty slice for nil: JSON [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
