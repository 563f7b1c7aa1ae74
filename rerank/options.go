// Package rerank ranks a retrieval's candidates. It is the one place where a
// candidate is scored and where the decision to inject is made: it fuses the
// arms' ranked lists (package rrf), scores each candidate from its evidence
// (the fused rank, the character-trigram overlap with the query, recency
// and, in the default preset, term coverage, proximity and the message's time
// window), raises the neighbours of strong matches, gates the retrieval on
// absolute evidence and selects what to inject, as the reference design's
// heuristic reranker does (the reference design: docs/architecture.md).
//
// It does no I/O: the caller (package retriever, or cmd/bench replaying
// retrievals offline) reads the candidates and their evidence and hands them
// in. The order of a ranking follows from its steps:
//
//	Fuse → Score → Neighbors.Raise (and Add) → Gate.Decline → Select
//
// or, with a relevance model (the default preset), the last steps are
// Inject.Probabilities → Inject.Select.
//
// Zero rule (docs/architecture.md): the ranking's options are filled in whole
// by a preset (DefaultOptions, ReferenceOptions), and the zero value of a
// field turns its step off: a zero weight adds nothing, a zero threshold tests nothing, a
// zero limit (MaxCandidates, QueryChars, Depth, Gap, …) limits nothing, a zero
// count (Neighbors.Fetch) adds nothing. The fields that cannot be off
// (Fusion.K, Ngrams.Size, Selection.MaxResults) must be set; Options.Validate
// says which is not.
package rerank

import (
	"fmt"
	"time"

	"github.com/omoide/omoide/rrf"
)

// The reference design's constants.
const (
	DefaultRRFK           = rrf.DefaultK
	DefaultMaxCandidates  = 60 // fused candidates kept for the rerank
	DefaultWeightRRF      = 0.55
	DefaultWeightLex      = 0.35
	DefaultWeightRecency  = 0.10
	DefaultRecencyDays    = 45   // e-folding time of the recency score, in days
	DefaultFullStrength   = 30   // a query with this many unique n-grams has full lexical strength
	DefaultQueryChars     = 1200 // the query's LAST characters are compared
	DefaultEpisodeChars   = 1200 // an episode's FIRST characters are compared
	DefaultNgramSize      = 3
	DefaultMaxResults     = 5
	DefaultMedium         = 0.28 // a pick below this is skipped
	DefaultHigh           = 0.35 // the first pick must reach this, or nothing is returned
	DefaultDedupeDice     = 0.90 // a candidate this similar to an earlier pick is skipped
	DefaultSemanticWeight = 1.0  // the fusion weight of a semantic embedder's vector lists, BM25's being 1
)

// The default preset's fixes of the reference's defects; each line says what
// it is, docs/quality.md ("The default preset, measured") how it was chosen.
const (
	DefaultLexicalKNNWeight = 0.1       // a lexical embedder's vector lists repeat BM25 without its IDF
	DefaultCoverageWeight   = 0.35      // the fused rank barely tells the first twenty candidates apart
	DefaultProximityWeight  = 0.2       // the message's adjacent terms, held near and in order
	DefaultWindowWeight     = 0.15      // a candidate inside the time window the message names
	DefaultNeighborShare    = 0.9       // a conversation stays on a topic for a few exchanges
	DefaultNeighborFetch    = 1         // a question and its answer often fall in two episodes
	DefaultNeighborGap      = time.Hour // exchanges an hour apart are two conversations
	DefaultGateDepth        = 2 * DefaultMaxResults
)

// Options are the ranking's steps: fusion, the score, the neighbours, the gate
// and the selection. Start from ReferenceOptions or DefaultOptions.
type Options struct {
	Fusion  Fusion
	Weights Weights
	// RecencyDays is the e-folding time of the recency part, in days; 0
	// gives every candidate recency 0.
	RecencyDays float64
	Ngrams      Ngrams
	Neighbors   Neighbors
	Gate        Gate
	Select      Selection
	// Inject, with a Model, decides what is injected by probability, in
	// place of the Gate's thresholds and Select's Medium and High.
	Inject Inject
}

// Fusion is how the arms' ranked lists are fused: each list adds
// weight/(K + rank) to the ids it holds (package rrf).
type Fusion struct {
	K int // the RRF constant; must be set
	// MaxCandidates is how many fused candidates are scored; 0 keeps all.
	MaxCandidates int
	// KNNWeight weighs a semantic embedder's vector lists, BM25's lists
	// weighing 1; LexicalKNNWeight weighs a lexical embedder's (the hash
	// embedder, embed.IsLexical). 0 leaves the vector lists out.
	KNNWeight, LexicalKNNWeight float64
	// ExpansionWeight weighs the BM25 list of the message's terms' learned
	// neighbours (retriever.Options.Expansion); 0 in both presets.
	ExpansionWeight float64
}

// Weights weigh the score parts in Final.
type Weights struct {
	RRF       float64 `json:"rrf"`       // the reference's three: Parts.RRFNorm,
	Lex       float64 `json:"lex"`       // Parts.Lex
	Recency   float64 `json:"rec"`       // and Parts.Rec
	Coverage  float64 `json:"coverage"`  // Parts.Coverage; 0 in the reference
	Proximity float64 `json:"proximity"` // Parts.Proximity; 0 in the reference
	Window    float64 `json:"window"`    // added when Parts.InWindow; 0 in the reference
	Meaning   float64 `json:"meaning"`   // Parts.Meaning; 0 in both presets (issue 36: measured, not yet kept)
}

// Ngrams is how the trigram overlap (Parts.Lex) is measured.
type Ngrams struct {
	Size int // characters per n-gram; must be set
	// QueryChars and EpisodeChars clip the compared texts: the query's last
	// characters, the episode's first; 0 clips nothing.
	QueryChars, EpisodeChars int
	// FullStrength is the number of unique query n-grams at which the
	// overlap counts fully; a shorter query's counts in proportion. 0 gives
	// every query full strength.
	FullStrength int
}

// Selection is how the picks are made from the ranked candidates.
type Selection struct {
	MaxResults int     // picks at most; must be set
	Medium     float64 // a candidate below this score is skipped; 0 skips none
	High       float64 // the first pick must reach this, or nothing is picked; 0 tests nothing
	// DedupeDice skips a candidate whose n-grams have at least this Dice with
	// an earlier pick's; 0 skips none.
	DedupeDice float64
}

// ReferenceOptions returns the reference design's ranking exactly.
func ReferenceOptions() Options {
	return Options{
		Fusion: Fusion{K: DefaultRRFK, MaxCandidates: DefaultMaxCandidates,
			KNNWeight: DefaultSemanticWeight, LexicalKNNWeight: DefaultSemanticWeight},
		Weights:     Weights{RRF: DefaultWeightRRF, Lex: DefaultWeightLex, Recency: DefaultWeightRecency},
		RecencyDays: DefaultRecencyDays,
		Ngrams: Ngrams{Size: DefaultNgramSize, QueryChars: DefaultQueryChars, EpisodeChars: DefaultEpisodeChars,
			FullStrength: DefaultFullStrength},
		// The reference has no gate (no threshold); its depth is the
		// default's, so that a variant that sets a threshold gates alike.
		Gate:   Gate{Depth: DefaultGateDepth},
		Select: Selection{MaxResults: DefaultMaxResults, Medium: DefaultMedium, High: DefaultHigh, DedupeDice: DefaultDedupeDice},
	}
}

// DefaultOptions returns omoide's default ranking: the reference's with its
// defects fixed where a fix was measured (docs/quality.md): a lexical
// embedder's vector lists weighed down, term coverage, proximity and the time
// window in the score, the neighbours of strong matches raised and, for the
// best match, added, a message that names what the memory never held
// declined (Gate.UnknownNames), and the decision to inject made by a
// calibrated relevance model (Inject) instead of thresholds on the score.
func DefaultOptions() Options {
	o := ReferenceOptions()
	o.Fusion.LexicalKNNWeight = DefaultLexicalKNNWeight
	o.Weights.Coverage = DefaultCoverageWeight
	o.Weights.Proximity = DefaultProximityWeight
	o.Weights.Window = DefaultWindowWeight
	o.Neighbors = Neighbors{Share: DefaultNeighborShare, Fetch: DefaultNeighborFetch, Gap: DefaultNeighborGap}
	o.Select.Medium, o.Select.High = 0, 0
	// A name the memory never held declines before the model weighs
	// anything: the model learns it only from suites that ask about absent
	// names, and forgets it on suites that do not (docs/quality.md).
	o.Gate.UnknownNames = true
	o.Inject = defaultInject()
	return o
}

// Validate returns an error naming the first field that is out of range: a
// negative number, or zero where the field cannot be off.
func (o Options) Validate() error {
	for _, v := range []struct {
		name string
		val  float64
		need bool // must be set
	}{
		{"Fusion.K", float64(o.Fusion.K), true},
		{"Fusion.MaxCandidates", float64(o.Fusion.MaxCandidates), false},
		{"Fusion.KNNWeight", o.Fusion.KNNWeight, false},
		{"Fusion.LexicalKNNWeight", o.Fusion.LexicalKNNWeight, false},
		{"RecencyDays", o.RecencyDays, false},
		{"Ngrams.Size", float64(o.Ngrams.Size), true},
		{"Ngrams.QueryChars", float64(o.Ngrams.QueryChars), false},
		{"Ngrams.EpisodeChars", float64(o.Ngrams.EpisodeChars), false},
		{"Ngrams.FullStrength", float64(o.Ngrams.FullStrength), false},
		{"Neighbors.Share", o.Neighbors.Share, false},
		{"Neighbors.Fetch", float64(o.Neighbors.Fetch), false},
		{"Neighbors.Gap", float64(o.Neighbors.Gap), false},
		{"Gate.MinCoverage", o.Gate.MinCoverage, false},
		{"Gate.MinCosine", o.Gate.MinCosine, false},
		{"Gate.Depth", float64(o.Gate.Depth), false},
		{"Select.MaxResults", float64(o.Select.MaxResults), true},
		{"Select.DedupeDice", o.Select.DedupeDice, false},
		{"Weights.Meaning", o.Weights.Meaning, false},
		{"Fusion.ExpansionWeight", o.Fusion.ExpansionWeight, false},
	} {
		switch {
		case v.val < 0:
			return fmt.Errorf("option Rank.%s is %v, must be >= 0", v.name, v.val)
		case v.need && v.val == 0:
			return fmt.Errorf("option Rank.%s is 0, must be set (it cannot be off)", v.name)
		}
	}
	if err := o.Inject.validate(); err != nil {
		return err
	}
	if o.Ngrams.Size > 3 {
		return fmt.Errorf("option Rank.Ngrams.Size is %d, must be at most 3", o.Ngrams.Size)
	}
	return nil
}

// MeasuresTerms reports whether the ranking uses the candidates' term
// coverage and proximity (Parts.Coverage, Parts.Proximity): the caller
// computes them only then, or when it wants them reported.
func (o Options) MeasuresTerms() bool {
	return o.Weights.Coverage > 0 || o.Weights.Proximity > 0 || o.Gate.thresholds() || o.Inject.On()
}
