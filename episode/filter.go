package episode

import (
	"slices"
	"time"
)

// SearchFilter restricts one search of a store, in absolute times: the zero
// SearchFilter admits every kind and state, sensitivity Normal only, at any
// time. A retrieval's filter (retriever.Filter) speaks in the request's days
// (an age, until today) and becomes one of these for each search.
type SearchFilter struct {
	Kinds          []Kind      // nil: any kind
	States         []State     // nil: any state
	MaxSensitivity Sensitivity // admit episodes up to this sensitivity
	Since          time.Time   // zero: no lower bound on OccurredAt
	Until          time.Time   // zero: no upper bound; else OccurredAt < Until
}

// Match is one search result: an episode id and the engine's score (cosine
// distance for Nearest, bm25 for BM25: lower is better for both).
type Match struct {
	ID    int64
	Score float64
}

// Admits reports whether e passes the filter, as the searches apply it: the
// same kinds, states, sensitivity and time bounds (to the second, as the
// store keeps times).
func (f SearchFilter) Admits(e Episode) bool {
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, e.Kind) {
		return false
	}
	if len(f.States) > 0 && !slices.Contains(f.States, e.State) {
		return false
	}
	if e.Sensitivity > f.MaxSensitivity {
		return false
	}
	at := e.OccurredAt.Unix()
	if !f.Since.IsZero() && at < f.Since.Unix() {
		return false
	}
	if !f.Until.IsZero() && at >= f.Until.Unix() {
		return false
	}
	return true
}

// Class is how many episodes share a kind, state and sensitivity.
type Class struct {
	Kind        Kind
	State       State
	Sensitivity Sensitivity
	Episodes    int
}
