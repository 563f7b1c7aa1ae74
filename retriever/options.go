package retriever

import (
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/rrf"
)

// The reference design's constants.
const (
	DefaultKNNK            = 20 // nearest neighbours per query
	DefaultBM25K           = 20 // full-text hits per query
	DefaultRRFK            = rrf.DefaultK
	DefaultMaxCandidates   = 60  // fused candidates kept for the rerank
	DefaultRecentEpisodes  = 3   // stored episodes that stand in for a missing Recent
	DefaultContextMessages = 6   // messages of recent conversation in Q2
	DefaultMaxQueryChars   = 256 // a BM25 query's text is clipped to this many characters
	DefaultMaxQueryTerms   = 12  // and to this many terms
	DefaultMaxAgeDays      = 365 // episodes older than this are not searched
	// ContextSeparator joins the recent conversation and the message into Q2.
	ContextSeparator = "\n---\n"
)

// Options configure a Retriever. Start from DefaultOptions or ReferenceOptions
// and change what you measure; the zero Options is not useful.
type Options struct {
	KNNK, BM25K     int // per query; 0 disables that arm
	RRFK            int
	MaxCandidates   int
	RecentEpisodes  int // stored episodes used as context when a request has no Recent
	ContextMessages int // the last this many messages of context go into Q2
	MaxQueryChars   int // BM25 query text clip
	MaxQueryTerms   int // BM25 query term limit
	MaxAgeDays      int // 0: no age limit
	// Kinds, States and MaxSensitivity filter both arms inside the engine.
	Kinds          []episode.Kind
	States         []episode.State
	MaxSensitivity episode.Sensitivity
	// UserLabel and AssistantLabel prefix context messages in Q2.
	UserLabel, AssistantLabel string
	Rerank                    rerank.Options
}

// ReferenceOptions returns the reference design exactly. Together with a store
// built with the "raw" analyzer it reproduces the reference retriever,
// defects included (see ../shared/design/reference-retrieval.md).
func ReferenceOptions() Options {
	return Options{
		KNNK:            DefaultKNNK,
		BM25K:           DefaultBM25K,
		RRFK:            DefaultRRFK,
		MaxCandidates:   DefaultMaxCandidates,
		RecentEpisodes:  DefaultRecentEpisodes,
		ContextMessages: DefaultContextMessages,
		MaxQueryChars:   DefaultMaxQueryChars,
		MaxQueryTerms:   DefaultMaxQueryTerms,
		MaxAgeDays:      DefaultMaxAgeDays,
		Kinds:           []episode.Kind{episode.KindEpisode},
		States:          []episode.State{episode.StateRaw, episode.StateValidated, episode.StateConsolidated},
		MaxSensitivity:  episode.SensitivityNormal,
		UserLabel:       "User",
		AssistantLabel:  "Persona",
		Rerank:          rerank.DefaultOptions(),
	}
}

// DefaultOptions returns omoide's default retriever: the reference pipeline
// with its defects fixed where a fix has been measured. Today the only
// difference lives in the store: the default store segments Japanese with
// kagome (tokenize.DefaultAnalyzer) so that BM25 matches words inside a clause.
func DefaultOptions() Options {
	return ReferenceOptions()
}
