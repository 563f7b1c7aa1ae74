package retriever

import (
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/rrf"
)

// The reference design's constants.
const (
	DefaultKNNK            = 20 // nearest neighbours per query
	DefaultBM25K           = 20 // full-text hits per query
	DefaultRRFK            = rrf.DefaultK
	DefaultMaxCandidates   = 60              // fused candidates kept for the rerank
	DefaultRecentEpisodes  = 3               // stored episodes that stand in for a missing Recent
	DefaultContextMessages = 6               // messages of recent conversation in Q2
	DefaultMaxQueryChars   = 256             // a BM25 query's text is clipped to this many characters
	DefaultMaxQueryTerms   = 12              // and to this many terms
	DefaultMaxAgeDays      = 365             // episodes older than this are not searched
	DefaultEmbedTimeout    = 2 * time.Second // the default preset's bound on the query embedding
	DefaultTimeBoost       = 0.15            // the default preset's bonus for a candidate inside the message's time window
	DefaultMaxMatchRows    = 2000            // the default preset's bound on the rows a BM25 query matches
	// DefaultMaxPostings bounds the postings a BM25 query reads over the
	// whole store, whoever they belong to: FTS5 reads a term's every posting
	// to find the person's rows among them. On a store of 1M episodes over
	// 1,000 people a query of terms within 20,000 postings takes about
	// 0.6 ms, within 50,000 1.2 ms; the dev suites' Recall@5 is the same at
	// 10,000, 20,000 and 50,000 (docs/performance.md).
	DefaultMaxPostings = 20000
	// DefaultMaxTermShare leaves out of BM25 queries the words more than a
	// tenth of the store's episodes hold. cmd/bench eval, Recall@5 with no
	// such bound → 0.10: sui-ja-dev written-reply 0.737 → 0.748, locomo-dev
	// single-hop 0.675 → 0.688, jsquad-ja-dev 0.964 → 0.964 (0.05 takes
	// jsquad to 0.960; docs/quality.md).
	DefaultMaxTermShare = 0.10
	// DefaultNeighborShare is the default preset's NeighborShare. cmd/bench
	// eval, Recall@5 with none → 0.9: locomo-dev single-hop 0.692 → 0.728,
	// adversarial 0.731 → 0.768, sui-ja-dev written-reply 0.748 → 0.771,
	// jsquad-ja-dev 0.963 → 0.963; 0.95 gains a little more on LoCoMo and
	// SUI and costs jsquad 0.1 point, 1.0 costs it 0.6 (docs/quality.md).
	DefaultNeighborShare = 0.9
	// DefaultNeighborFetch is the default preset's NeighborFetch: the
	// episodes just before and after the first candidate join the
	// candidates even when no search found them. A conversation's question
	// and its answer often fall in two episodes (the assistant asks at the
	// end of one, the person answers at the start of the next), and only
	// one of them shares the message's words. cmd/bench eval, Recall@5 with
	// none → 1 (coverage in the rerank): sui-ja-dev written-reply 0.769 →
	// 0.820, locomo-dev single-hop 0.783 → 0.818, jsquad-ja-dev 0.968 →
	// 0.968; 2 gains 0.1–0.3 points for a second read (docs/quality.md).
	DefaultNeighborFetch = 1
	// DefaultNeighborGap is the default preset's NeighborGap: exchanges an
	// hour apart are two conversations. In the dev suites an exchange
	// follows the one before within two minutes inside a session, and
	// hours or days apart across them. cmd/bench eval, Recall@5 with no
	// bound → an hour (30 minutes and 6 hours are the same): locomo-dev
	// single-hop 0.818 → 0.823, sui-ja-dev written-reply 0.820 → 0.829,
	// recent-turns 0.056 → 0.062, jsquad-ja-dev unchanged (docs/quality.md).
	DefaultNeighborGap = time.Hour
	// DefaultCoverageWeight is the default preset's Rerank.WeightCoverage:
	// the weight of a candidate's term coverage of the message (the gate's
	// evidence) in its score. The fused score's rank-based RRF barely tells
	// the first twenty candidates apart (1/61 against 1/80), and the
	// trigram Dice is small for any long episode; coverage says how much of
	// what the message asks about an episode holds. cmd/bench eval,
	// Recall@5 with none → 0.35: locomo-dev single-hop 0.728 → 0.783,
	// temporal 0.680 → 0.761, jsquad-ja-dev 0.963 → 0.968, sui-ja-dev
	// written-reply 0.771 → 0.769 (docs/quality.md).
	DefaultCoverageWeight = 0.35
	// DefaultProximityWeight is the default preset's
	// Rerank.WeightProximity: the weight of how many of the message's
	// adjacent term pairs a candidate holds close together and in order
	// ("梅雨の期間" in a paragraph that says 梅雨の期間, not one that holds
	// 梅雨 and 期間 apart), the ordered-window feature of sequential
	// dependence models. cmd/bench eval, weight 0 → 0.2 (0.1 and 0.35
	// measured too): jsquad-ja-dev Recall@1 0.922 → 0.926, Recall@5 0.968 →
	// 0.970; locomo-dev single-hop 0.821 → 0.830 (docs/quality.md).
	DefaultProximityWeight = 0.2
	// DefaultMinCoverage is the default preset's inject gate: a retrieval
	// injects only if one of its first candidates holds at least 29% of the
	// message's terms, by IDF weight (terms no episode holds left out; a
	// term held through a synonym counts, Options.Synonyms). Calibrated
	// with cmd/bench tune on jsts-ja-dev and locomo-dev (docs/quality.md):
	// at 0.29 JSTS's false inject rate is 0.093, with 0.911 of the queries
	// whose relevant episode is in the top 5 still injecting; 0.28 gives
	// 0.096 and 0.913, 0.30 gives 0.088 and 0.902. Both targets (at most
	// 0.10, at least 0.90) hold from 0.28 to 0.30; 0.29 leaves each about a
	// point, one standard error of a dev-set rate, for unseen data. LoCoMo's cross-conversation
	// questions are the names gate's (UnknownNames: 0.007 false inject).
	// The hash embedder's cosine adds nothing on top (MinCosine off).
	DefaultMinCoverage = 0.29
	// DefaultLexicalKNNWeight is the fusion weight of a lexical embedder's
	// vector lists when Options.KNNWeight is 0. The hash embedder's vectors
	// are bags of n-grams without IDF: at equal weight they push BM25's
	// good rankings down (cmd/bench eval, default preset, hash embedder,
	// Recall@5 at weight 1 → 0.1: jsquad-ja-dev 0.944 → 0.965, sui-ja-dev
	// written-reply 0.617 → 0.752, locomo-dev single-hop 0.578 → 0.663;
	// docs/quality.md). At 0.1 they still add candidates BM25 misses and break
	// its ties.
	DefaultLexicalKNNWeight = 0.1
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

	// The fixes of the reference's defects; ReferenceOptions leaves them off.

	// Location is the person's time zone: the MaxAgeDays window starts at a
	// local midnight in it, and time expressions ("昨日", TimeAware) name its
	// days. nil means UTC, the reference's day numbers. A Request's Location
	// overrides it (a backend whose people live in several zones).
	Location *time.Location
	// ExcludeRecent drops candidates already in the recent conversation: the
	// stored episodes that served as context, and episodes whose text is one
	// of the recent messages (the reference re-surfaces them through Q2).
	ExcludeRecent bool
	// MessageFirstBM25 builds Q2's BM25 query from the message first and the
	// context newest-first, so clipping never cuts the message (the
	// reference clips Q2 from its head, dropping the message when the
	// context is long).
	MessageFirstBM25 bool
	// FallbackBM25 keeps retrieving with BM25 and the rerank when the
	// embedder fails or exceeds EmbedTimeout, and says so in the trace (the
	// reference returns nothing).
	FallbackBM25 bool
	// EmbedTimeout bounds the query embedding call; 0 means no bound beyond
	// the request's context.
	EmbedTimeout time.Duration
	// SkipSmallTalk skips retrieval for greetings, thanks, acknowledgements
	// and aizuchi that carry no memory cue (smalltalk.NeedsMemory).
	SkipSmallTalk bool
	// TimeAware reads a time expression in the message (timeexpr.Parse, in
	// Location): both arms also search inside its window, candidates inside
	// it get TimeBoost, and a message that is only a time reference
	// ("先週何話したっけ") returns the window's episodes.
	TimeAware bool
	TimeBoost float64
	// OneVectorScan searches both queries' vectors in one pass with
	// episode.Store.Nearest: in memory, over quantized codes, for a person
	// with many episodes (the reference runs one exact vec0 scan per query).
	OneVectorScan bool
	// MaxMatchRows bounds the rows a BM25 query may match among the person's
	// episodes: each query keeps its rarest terms while their estimated rows
	// there (document frequency × the person's share of the store) sum to at
	// most this, and, when MaxPostings is set, their document frequencies in
	// the whole store to at most MaxPostings (the rarest term always stays).
	// 0 keeps every term, as the reference does.
	MaxMatchRows int
	MaxPostings  int
	// MaxTermShare leaves out of a BM25 query (when MaxMatchRows is set) the
	// terms that more than this share of the store's episodes hold (and more
	// than 100 episodes), unless it is the query's rarest: words nearly every episode holds weigh
	// almost nothing in bm25 but still pull in episodes that share only them.
	MaxTermShare float64
	// KNNWeight is the weight of the vector lists in the fusion, BM25's
	// being 1: each adds KNNWeight/(RRFK + rank). 0 means: 1 (the
	// reference's equal weights) for a semantic embedder, and
	// DefaultLexicalKNNWeight for one that is lexical (embed.IsLexical, the
	// hash embedder). Disable the arm with KNNK = 0.
	KNNWeight float64
	// Gate admits a candidate only on absolute evidence (the reference's
	// high threshold can never say no: its top candidate always has
	// rrf_norm 1). The zero Gate admits everything.
	Gate Gate
	// NeighborShare, when above 0, raises a candidate that is the person's
	// episode just before or after one of the first Rerank.MaxResults
	// candidates to at least this share of that one's score, and sorts
	// again. A conversation stays on a topic for a few exchanges, so a
	// candidate next to a strong match is better evidence than its own
	// score says; only candidates (found by an arm, inside the filter) are
	// raised, and NeighborFetch says which are added. 0 (the reference)
	// leaves the order alone.
	NeighborShare float64
	// NeighborFetch: the neighbours in time of the first NeighborFetch
	// candidates are added as candidates, raised as above, even when no
	// search found them, if they pass the same filters (kind, state,
	// sensitivity, age) and are not one of the recent turns. 0 (the
	// reference) adds none; it needs NeighborShare.
	NeighborFetch int
	// NeighborGap: an episode more than this far in time from the one it
	// is next to is another conversation, neither raised nor added. 0
	// bounds nothing.
	NeighborGap time.Duration
	// Synonyms lets a message's term be held by an episode through its
	// synonyms (package synonym: 子供 and 子ども, シール and ステッカー) in
	// Coverage, and so in the gate and the score; the term and its synonyms
	// weigh as one, by the documents that hold any of them. Only a store whose
	// analyzer has the synonyms (tokenize.Thesaurus, the default) uses them. false (the reference) matches terms as they are spelled.
	Synonyms bool
}

// Gate decides whether a retrieval has evidence at all, on signals measured
// against the message alone, not against the other candidates, so that
// "nothing relevant" can be said: at least one of the first Depth reranked
// candidates (0 means twice the reranker's MaxResults) must have a Coverage
// (the IDF-weighted share of the message's terms that the episode holds) of
// at least MinCoverage, or a Cosine similarity to the message of at least
// MinCosine, or lie inside the time window the message names (TimeAware:
// "4日前に話した課題" asks for that day, whatever its words); otherwise no
// candidate is returned. When one passes, the
// reranker picks as usual. A zero threshold disables its test; the zero Gate
// admits everything.
//
// Coverage does not depend on the embedder; cosine thresholds do, so
// MinCosine must be re-tuned (cmd/bench tune) for another embedder.
//
// With UnknownNames, a message that names something none of the person's
// episodes has ever held (a proper noun, found by the store's analyzer when
// it is a tokenize.NameFinder: "What did Caroline research?" asked of a
// memory without a Caroline) injects nothing, whatever the candidates cover:
// the memory cannot be about it, and the words around a name ("research",
// "camping") are what every memory shares. It needs no threshold.
type Gate struct {
	MinCoverage  float64
	MinCosine    float64
	Depth        int
	UnknownNames bool
}

func (g Gate) thresholds() bool { return g.MinCoverage > 0 || g.MinCosine > 0 }

func (g Gate) depth(maxResults int) int {
	if g.Depth > 0 {
		return g.Depth
	}
	return 2 * max(1, maxResults)
}

func (g Gate) admits(h Hit) bool {
	return (g.MinCoverage > 0 && h.Coverage >= g.MinCoverage) || (g.MinCosine > 0 && h.Cosine >= g.MinCosine) ||
		h.InWindow
}

func (o Options) location() *time.Location {
	if o.Location == nil {
		return time.UTC
	}
	return o.Location
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
		KNNWeight:       1,
	}
}

// DefaultOptions returns omoide's default retriever: the reference pipeline
// with its defects fixed where a fix has been measured (docs/quality.md) and
// its scans made fast (docs/performance.md): no echo of the recent turns, the
// message first in Q2's BM25 query, BM25 alone when the embedder fails,
// small talk skipped, time-aware queries, an inject gate on term coverage and
// on names the memory never held, term coverage in the rerank score
// (Rerank.WeightCoverage), the same conversation's episodes next to a strong
// match raised and, for the best match, added (NeighborShare, NeighborFetch,
// NeighborGap), a lexical embedder's vector lists weighed down in the fusion,
// common and costly terms out of the BM25 queries and one in-memory vector
// scan for both queries, synonyms in term coverage and term pairs near each
// other in the score (Synonyms, Rerank.WeightProximity). Its store segments Japanese with
// kagome and stems English (tokenize.DefaultAnalyzer).
func DefaultOptions() Options {
	o := ReferenceOptions()
	o.ExcludeRecent = true
	o.MessageFirstBM25 = true
	o.FallbackBM25 = true
	o.EmbedTimeout = DefaultEmbedTimeout
	o.SkipSmallTalk = true
	o.TimeAware = true
	o.TimeBoost = DefaultTimeBoost
	o.MaxMatchRows = DefaultMaxMatchRows
	o.MaxPostings = DefaultMaxPostings
	o.MaxTermShare = DefaultMaxTermShare
	o.OneVectorScan = true
	o.Gate = Gate{MinCoverage: DefaultMinCoverage, UnknownNames: true}
	o.NeighborShare = DefaultNeighborShare
	o.NeighborFetch = DefaultNeighborFetch
	o.NeighborGap = DefaultNeighborGap
	o.Rerank.WeightCoverage = DefaultCoverageWeight
	o.Rerank.WeightProximity = DefaultProximityWeight
	o.Synonyms = true
	o.KNNWeight = 0 // by the embedder: see KNNWeight
	return o
}
