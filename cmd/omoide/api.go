package main

import (
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// The JSON shapes of a retrieval, shared by "retrieve -json" and the HTTP
// API. Durations are whole microseconds.

// hitJSON is one retrieved episode with its score parts.
type hitJSON struct {
	ID          int64               `json:"id"`
	ExternalID  string              `json:"external_id,omitempty"`
	User        string              `json:"user"`
	UserText    string              `json:"user_text"`
	ReplyText   string              `json:"reply_text"`
	OccurredAt  time.Time           `json:"occurred_at"`
	Source      string              `json:"source"`
	Kind        episode.Kind        `json:"kind"`
	State       episode.State       `json:"state"`
	Sensitivity episode.Sensitivity `json:"sensitivity"`
	Relevance   string              `json:"relevance,omitempty"` // high or medium; unset for candidates
	Reason      string              `json:"reason,omitempty"`
	// Probability is the relevance model's P(relevant), when it decides.
	Probability float64 `json:"probability,omitempty"`
	Score       float64 `json:"score"` // the final rerank score
	RRF         float64 `json:"rrf"`   // the fused score
	RRFNorm     float64 `json:"rrf_norm"`
	Lex         float64 `json:"lex"`
	Rec         float64 `json:"rec"`
	Coverage    float64 `json:"coverage"`            // the IDF-weighted share of the message's terms it holds, when computed
	Proximity   float64 `json:"proximity"`           // the IDF-weighted share of the message's adjacent term pairs it holds near and in order, with coverage
	Cosine      float64 `json:"cosine"`              // to the message alone, when its vector search found the episode
	LexMessage  float64 `json:"lex_message"`         // trigram Dice with the message alone, when computed
	InWindow    bool    `json:"in_window,omitempty"` // inside the time window the message names
}

// traceJSON is retriever.Trace.
type traceJSON struct {
	Skipped  string `json:"skipped,omitempty"`
	Clipped  string `json:"clipped,omitempty"`  // what was read only up to retriever.MaxMessageBytes
	Degraded string `json:"degraded,omitempty"` // why the vector arm did not run
	Window   string `json:"window,omitempty"`   // the message's time expression and its window
	Declined string `json:"declined,omitempty"` // why the gate or the relevance model injected nothing
	// Probability is the relevance model's that one of the first candidates
	// is relevant, when it decides.
	Probability float64 `json:"probability,omitempty"`
	// Decision is the relevance model that decided and the embedder it was
	// fitted for, or the rules.
	Decision string `json:"decision,omitempty"`
	// UnknownNames are the message's names that the person's memory never held.
	UnknownNames []string `json:"unknown_names,omitempty"`
	Queries      []string `json:"queries"`
	BM25Match    []string `json:"bm25_match"`
	KNNHits      []int    `json:"knn_hits"`
	BM25Hits     []int    `json:"bm25_hits"`
	Candidates   int      `json:"candidates"`
	Fetched      int      `json:"fetched"`
	Echoes       int      `json:"echoes"`          // dropped as already in the recent conversation
	Neighbors    int      `json:"neighbors"`       // raised or added for being next to one of the first
	NeighborsAdd int      `json:"neighbors_added"` // of them, added though no search found them
	Gated        int      `json:"gated"`           // dropped by the gate
	Picked       int      `json:"picked"`
	EmbedUS      int64    `json:"embed_us"`
	KNNUS        int64    `json:"knn_us"`
	BM25US       int64    `json:"bm25_us"`
	FuseUS       int64    `json:"fuse_us"`
	FetchUS      int64    `json:"fetch_us"`
	RerankUS     int64    `json:"rerank_us"`
	TotalUS      int64    `json:"total_us"`
}

// resultJSON is retriever.Result.
type resultJSON struct {
	Hits       []hitJSON `json:"hits"`
	Candidates []hitJSON `json:"candidates,omitempty"`
	Trace      traceJSON `json:"trace"`
}

// packJSON is a rendered EPISODE_EVIDENCE section with the retrieval behind
// it; Section is "" and Inject false when nothing is worth injecting.
type packJSON struct {
	Section string    `json:"section"`
	Inject  bool      `json:"inject"`
	Hits    []hitJSON `json:"hits"`
	Trace   traceJSON `json:"trace"`
}

func toHitJSON(h retriever.Hit) hitJSON {
	e := h.Episode
	out := hitJSON{ID: e.ID, ExternalID: e.ExternalID, User: e.User, UserText: e.UserText, ReplyText: e.ReplyText,
		OccurredAt: e.OccurredAt, Source: e.Source, Kind: e.Kind, State: e.State, Sensitivity: e.Sensitivity,
		Reason: h.Reason, Probability: h.Probability, Score: h.Score, RRF: h.RRF, RRFNorm: h.RRFNorm, Lex: h.Lex, Rec: h.Rec, Coverage: h.Coverage,
		Proximity: h.Proximity, Cosine: h.Cosine, LexMessage: h.LexMessage, InWindow: h.InWindow}
	if h.Relevance != 0 {
		out.Relevance = h.Relevance.String()
	}
	return out
}

func toHitsJSON(hs []retriever.Hit) []hitJSON {
	out := make([]hitJSON, len(hs))
	for i, h := range hs {
		out[i] = toHitJSON(h)
	}
	return out
}

func toTraceJSON(t retriever.Trace) traceJSON {
	us := func(d time.Duration) int64 { return d.Microseconds() }
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	nonNilInts := func(s []int) []int {
		if s == nil {
			return []int{}
		}
		return s
	}
	return traceJSON{Skipped: t.Skipped, Clipped: t.Clipped, Degraded: t.Degraded, Window: t.Window, Declined: t.Declined, Probability: t.Probability, Decision: t.Decision, UnknownNames: t.UnknownNames, Queries: nonNil(t.Queries), BM25Match: nonNil(t.BM25Match),
		KNNHits: nonNilInts(t.KNNHits), BM25Hits: nonNilInts(t.BM25Hits),
		Candidates: t.Candidates, Fetched: t.Fetched, Echoes: t.Echoes, Neighbors: t.Neighbors, NeighborsAdd: t.NeighborsAdded, Gated: t.Gated, Picked: t.Picked,
		EmbedUS: us(t.Embed), KNNUS: us(t.KNN), BM25US: us(t.BM25), FuseUS: us(t.Fuse), FetchUS: us(t.Fetch),
		RerankUS: us(t.Rerank), TotalUS: us(t.Total)}
}

func toResultJSON(r retriever.Result) resultJSON {
	out := resultJSON{Hits: toHitsJSON(r.Hits), Trace: toTraceJSON(r.Trace)}
	if r.Candidates != nil {
		out.Candidates = toHitsJSON(r.Candidates)
	}
	return out
}

// statsJSON is episode.Stats.
type statsJSON struct {
	Path          string `json:"path,omitempty"`
	SchemaVersion int    `json:"schema_version"`
	Embedder      string `json:"embedder"` // name/dim
	EmbedderName  string `json:"embedder_name"`
	EmbedderDim   int    `json:"embedder_dim"`
	Analyzer      string `json:"analyzer"`
	Episodes      int    `json:"episodes"`
	Users         int    `json:"users"`
	FTSRows       int    `json:"fts_rows"`
	VectorRows    int    `json:"vector_rows"`
	Consistent    bool   `json:"consistent"` // the three row counts agree
	FileBytes     int64  `json:"file_bytes"`
	FreeBytes     int64  `json:"free_bytes"` // on the file's free list, reused before it grows
	// Unsearched counts the episodes the preset's filter leaves out (omoide
	// stats; not /healthz, which stays cheap).
	Unsearched *retriever.Unsearched `json:"unsearched,omitempty"`
	// Decision says what decides what is injected for the preset and this
	// store's embedder (retriever.ModelFor; omoide stats).
	Decision string `json:"decision,omitempty"`
}

func toStatsJSON(path string, st episode.Stats) statsJSON {
	return statsJSON{Path: path, SchemaVersion: st.SchemaVersion, Embedder: st.Embedder.String(),
		EmbedderName: st.Embedder.Name, EmbedderDim: st.Embedder.Dim, Analyzer: st.Analyzer,
		Episodes: st.Episodes, Users: st.Users, FTSRows: st.FTSRows, VectorRows: st.VectorRows,
		Consistent: st.Episodes == st.FTSRows && st.Episodes == st.VectorRows, FileBytes: st.FileBytes, FreeBytes: st.FreeBytes}
}
