package retriever

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/rerank"
)

// The reference design's constants.
const (
	DefaultKNNK            = 20  // nearest neighbours per query
	DefaultBM25K           = 20  // full-text hits per query
	DefaultRecentEpisodes  = 3   // stored episodes that stand in for a missing Request.Recent
	DefaultContextMessages = 6   // messages of recent conversation in Q2
	DefaultMaxQueryChars   = 256 // a BM25 query's text is clipped to this many characters
	DefaultMaxQueryTerms   = 12  // and to this many terms
	DefaultMaxAgeDays      = 365 // episodes older than this many days are not searched
	// DefaultSessionGap is the default preset's Context.SessionGap: a stored
	// exchange older than this is a past conversation, not the one going on
	// (thirty minutes of silence ends a session, as web analytics count them).
	DefaultSessionGap = 30 * time.Minute
	// ContextSeparator joins the recent conversation and the message into Q2.
	ContextSeparator = "\n---\n"
)

// The default preset's fixes of the reference's defects; each line says what
// it is, docs/quality.md ("The default preset, measured") how it was chosen.
const (
	DefaultEmbedTimeout  = 2 * time.Second // the bound on the query embedding
	DefaultMaxMatchRows  = 2000            // the rows a BM25 query may match among the person's episodes
	DefaultMaxPostings   = 20000           // the postings a BM25 query may read in the whole store
	DefaultMaxTermShare  = 0.10            // a word more than this share of the episodes hold is left out of BM25
	DefaultReplyDiscount = 0.5             // a message word held only in the companion's reply counts half in coverage
)

// Options configure a Retriever. Start from DefaultOptions or
// ReferenceOptions and change what you measure.
//
// Options{} is DefaultOptions(). Inside a preset, a zero field turns its step
// off (a zero K its arm, a zero limit limits nothing), except
// Filter.MaxSensitivity (normal episodes only) and Location (UTC); the zero
// rule is stated in docs/architecture.md. New rejects a negative value, or
// zero in the three fields that cannot be off (Rank.Fusion.K,
// Rank.Ngrams.Size, Rank.Select.MaxResults), naming it.
type Options struct {
	Vector  Vector  // the vector arm: KNN over the query embeddings
	BM25    BM25    // the full-text arm
	Filter  Filter  // which episodes the arms search
	Context Context // the recent conversation: Q2 and its echoes
	// TimeAware reads a time expression in the message (timeexpr.ParseLang,
	// in Location and the message's language, Request.Lang): both arms also search inside its window, candidates inside
	// it get Rank.Weights.Window, and a message that is only a time
	// reference ("先週何話したっけ") returns the window's episodes.
	TimeAware bool
	// SkipSmallTalk skips retrieval for greetings, thanks, acknowledgements
	// and aizuchi that carry no memory cue (smalltalk.NeedsMemoryLang).
	SkipSmallTalk bool
	// Synonyms lets a message's term be held by an episode through its
	// synonyms (package synonym: 子供 and 子ども, シール and ステッカー) in
	// term coverage, and so in the gate and the score; the term and its
	// synonyms weigh as one. Only a store whose analyzer spells terms as the
	// synonym table does (tokenize.Synonymous) uses them.
	Synonyms bool
	// Bridges measures, for a message with kana, the strongest relation
	// package thesaurus knows between one of its terms and a different
	// term of each candidate (Parts.Bridge: equivalent, a kind of, a
	// sibling), which the relevance model reads: a memory asked about in
	// other words, and the sibling that is not what was asked.
	Bridges bool
	// Equivalents adds to the BM25 query of a message with kana the
	// equivalents package thesaurus gives each of its terms
	// (thesaurus.Table.Synonyms: バイト for アルバイト), when some episode holds
	// them: a memory said in other words becomes a candidate, which the
	// relevance model may trust through Parts.Bridge.
	Equivalents bool
	// UnseenTerms weighs a message term that no episode of the store holds
	// as the rarest, idf = ln(1 + N/1), in term coverage: a word the memory
	// never saw is evidence against every candidate, which lacks it. Off, such
	// a term weighs nothing, and a message whose content words are all new
	// is covered whole by a verb it shares ("来月の引っ越しどうなるかな" by an
	// episode that holds なる).
	UnseenTerms bool
	// LightTerms lets the analyzer's function words and light verbs
	// (tokenize.Lexicon.Light: なる, する, 了, 吗, 했어) weigh in term
	// coverage only a fifth of their IDF, and only in an episode that holds
	// one of the message's content terms too: alone they cover nothing.
	LightTerms bool
	// ReplyDiscount is the share of its weight a message term loses in
	// term coverage when the episode holds it only in the companion's
	// reply, in [0, 1]: the reply's advice and questions (記得擦防晒哦) are
	// not what the person said, and a turn that repeats them is seldom
	// about that exchange. 0 counts the reply as the person's words.
	ReplyDiscount float64
	// Forms lets a message term be held by an episode through the other
	// index terms that stand for it (tokenize.Lexicon.Forms: a Korean
	// one-syllable noun, 눈, and its forms with particles, 눈이, 눈은; an
	// English word and its irregular forms, eat and ate), in term coverage
	// as synonyms are and in the BM25 query.
	Forms bool
	// Location is the person's time zone: the Filter.MaxAgeDays window starts
	// at a local midnight in it, and time expressions ("昨日") name its
	// days. nil is UTC, the reference's day numbers. A Request's Location
	// overrides it (a backend whose people live in several zones).
	Location *time.Location
	// Rank fuses, scores, gates and selects the candidates (package rerank).
	Rank rerank.Options
	// Meaning gives the ranking learned word vectors of the store
	// analyzer's terms (package wordvec, through embed.Terms): a candidate's
	// Parts.Meaning is the cosine of its indexed terms' vector with the
	// message's, which Rank.Weights.Meaning weighs. nil measures nothing
	// (both presets).
	Meaning MeaningVectors `json:"-"`
	// Expansion searches BM25 again with the message's terms' nearest
	// learned neighbours (Meaning's), a list Rank.Fusion.ExpansionWeight
	// weighs: a memory said in other words (アルバイト for バイト) becomes a
	// candidate. Its zero expands nothing.
	Expansion Expansion
}

// Expansion configures the search by the message's terms' neighbours.
type Expansion struct {
	// Neighbours is how many of each term's nearest neighbours are added;
	// 0 turns the expansion off.
	Neighbours int
	// MinCosine is the least cosine of a neighbour to its term.
	MinCosine float64
	// MaxTermShare leaves out the terms, and the neighbours, seen in more
	// than this share of the tokens the vectors were learned from
	// (function words and verbs that stand near every topic); 0 leaves none
	// out.
	MaxTermShare float64
}

// MeaningVectors give an analyzer's index terms the unit vector of their
// meaning (wordvec.Meaning).
type MeaningVectors interface {
	// TermsVector returns the vector of terms, nil when none has one.
	TermsVector(terms []string) []float32
	// Analyzer names the analyzer whose terms they are.
	Analyzer() string
	// Near returns up to k terms nearest to term with a cosine of at least
	// min, nearest first, leaving out terms seen in more than maxShare of
	// the learned tokens (0: none left out); it is safe for concurrent use.
	Near(term string, k int, min, maxShare float64) []string
}

// Vector configures the vector arm.
type Vector struct {
	K int // nearest neighbours per query; 0 turns the arm off
	// Timeout bounds the query embedding call; 0 bounds nothing beyond the
	// request's context.
	Timeout time.Duration
	// FallbackBM25 keeps retrieving with BM25 and the rerank when the
	// embedder fails or exceeds Timeout, and says so in the trace (the
	// reference returns nothing).
	FallbackBM25 bool
}

// BM25 configures the full-text arm: how a query's terms are chosen.
type BM25 struct {
	K int // hits per query; 0 turns the arm off
	// MaxChars clips a query's text, MaxTerms its terms; 0 clips nothing.
	MaxChars, MaxTerms int
	// MessageFirst builds Q2's query from the message first and the
	// context newest-first, so clipping never cuts the message (the
	// reference clips Q2 from its head, dropping the message when the
	// context is long).
	MessageFirst bool
	// MaxRows, MaxPostings and MaxTermShare bound a query's work: each
	// query keeps its rarest terms while their estimated rows among the
	// person's episodes (document frequency × the person's share of the
	// store) sum to at most MaxRows (and a fortieth of the person's
	// episodes, at least 250), their document frequencies in the whole
	// store to at most MaxPostings, and none is held by more than
	// MaxTermShare of the store's episodes (and more than 100); the rarest
	// term always stays. 0 bounds nothing; the reference bounds nothing.
	MaxRows, MaxPostings int
	MaxTermShare         float64
}

// Filter says which episodes a retrieval searches, inside the engine, in the
// request's days (MaxAgeDays, UntilToday, in Location); each search gets it
// as the store's episode.SearchFilter, with those days as absolute times. A
// Request can replace it for one retrieval (Request.Filter).
type Filter struct {
	Kinds  []episode.Kind  // nil: every kind
	States []episode.State // nil: every state
	// MaxSensitivity is the most private level searched; its zero,
	// episode.SensitivityNormal, admits normal episodes only.
	MaxSensitivity episode.Sensitivity
	MaxAgeDays     int // episodes older than this many days (in Location) are not searched; 0: any age
	// UntilToday leaves out episodes dated after today (in Location), as
	// the reference's day window ends at today; false searches them too.
	UntilToday bool
}

// Admits reports whether the filter searches episodes of this kind, state
// and sensitivity (of any age).
func (f Filter) Admits(k episode.Kind, st episode.State, sens episode.Sensitivity) bool {
	return f.episodeFilter().Admits(episode.Episode{Kind: k, State: st, Sensitivity: sens})
}

// episodeFilter is f's kinds, states and sensitivity as the store filters
// them, without a time window.
func (f Filter) episodeFilter() episode.SearchFilter {
	return episode.SearchFilter{Kinds: f.Kinds, States: f.States, MaxSensitivity: f.MaxSensitivity}
}

// The kinds, states and sensitivity levels a Filter may name: those that
// have a name (package episode's).
var (
	filterKinds         = []episode.Kind{episode.KindEpisode, episode.KindFact, episode.KindSummary, episode.KindLoop}
	filterStates        = []episode.State{episode.StateRaw, episode.StateValidated, episode.StateConsolidated, episode.StateArchived}
	filterSensitivities = []episode.Sensitivity{episode.SensitivityNormal, episode.SensitivityPrivate, episode.SensitivitySecret}
)

// Validate returns an error naming the first invalid field: a negative age
// limit, or a kind, state or sensitivity that does not exist, with the
// values that do (a filter of kind 99 would search nothing, silently). The
// caller says which filter: "option Filter: ", "filter: ", "-kinds: ".
func (f Filter) Validate() error {
	if f.MaxAgeDays < 0 {
		return fmt.Errorf("max age %d days: want 0 (any age) or more", f.MaxAgeDays)
	}
	if err := checkNamed("sensitivity", []episode.Sensitivity{f.MaxSensitivity}, filterSensitivities); err != nil {
		return err
	}
	if err := checkNamed("kind", f.Kinds, filterKinds); err != nil {
		return err
	}
	return checkNamed("state", f.States, filterStates)
}

// checkNamed returns an error naming the first of vs that is none of valid,
// and the valid ones by name and number; what says what they are.
func checkNamed[T interface {
	~int
	fmt.Stringer
}](what string, vs, valid []T) error {
	for _, v := range vs {
		if slices.Contains(valid, v) {
			continue
		}
		names := make([]string, len(valid))
		for i, n := range valid {
			names[i] = fmt.Sprintf("%s (%d)", n, int(n))
		}
		return fmt.Errorf("%s %d does not exist: want %s or %s", what, int(v), strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	return nil
}

// Context is how the recent conversation is used.
type Context struct {
	// Episodes is how many stored episodes stand in for the recent
	// conversation when a request has none (Request.Recent nil); 0: none.
	Episodes int
	// SessionGap bounds them to the conversation going on: only episodes
	// dated within SessionGap before the request's Now stand in (an
	// exchange stored days ago is a memory to find, not the context to
	// drop as an echo); 0 bounds nothing, as the reference.
	SessionGap time.Duration
	// Messages is how many of the last messages go into Q2; 0 makes no Q2.
	Messages int
	// UserLabel and AssistantLabel prefix the messages in Q2 ("User: …");
	// an empty label prefixes nothing.
	UserLabel, AssistantLabel string
	// OtherRoles puts the messages of roles other than the user's and the
	// assistant's ("system", a friend's name) into Q2, labelled by their
	// role ("Message" when it is empty), as the reference does; false leaves
	// them out: they are not the conversation.
	OtherRoles bool
	// ExcludeRecent drops candidates already in the recent conversation:
	// the stored episodes that served as context, and episodes whose text
	// is one of the recent messages (the reference re-surfaces them
	// through Q2).
	ExcludeRecent bool
}

// ReferenceOptions returns the reference design exactly, as the original
// retriever has it at commit 39ca2e7 (2026-01-04): the context windowed before
// empty messages are dropped and every role labelled, secret episodes
// searched, the day window ending today. Together with a store built with the
// "raw" analyzer that scans vectors exactly (omoide's reference preset) it
// reproduces the original, defects included
// (the reference design; testdata/reference/oracle.json).
func ReferenceOptions() Options {
	return Options{
		Vector: Vector{K: DefaultKNNK},
		BM25:   BM25{K: DefaultBM25K, MaxChars: DefaultMaxQueryChars, MaxTerms: DefaultMaxQueryTerms},
		Filter: Filter{
			Kinds:          []episode.Kind{episode.KindEpisode},
			States:         []episode.State{episode.StateRaw, episode.StateValidated, episode.StateConsolidated},
			MaxSensitivity: episode.SensitivitySecret, // "SECRET included" at the original's commit
			MaxAgeDays:     DefaultMaxAgeDays,
			UntilToday:     true,
		},
		Context: Context{Episodes: DefaultRecentEpisodes, Messages: DefaultContextMessages, UserLabel: "User", AssistantLabel: "Persona",
			OtherRoles: true},
		Rank: rerank.ReferenceOptions(),
	}
}

// DefaultOptions returns omoide's default retriever: the reference pipeline
// with its defects fixed where a fix has been measured (docs/quality.md), every
// stored memory reachable (docs/reliability.md), and
// its scans made fast (docs/performance.md): a bounded embedding with BM25
// alone when the embedder fails, the message first in Q2's BM25 query and
// common and costly terms out of it, no echo of the recent turns, small talk
// skipped, time-aware queries, synonyms, unseen terms, light terms and
// Korean forms in term coverage, and the default
// ranking (rerank.DefaultOptions). It keeps the reference's context window
// (taken before empty messages are dropped) but leaves roles other than the
// user's and the assistant's out of it, and lets stored exchanges stand in
// for a missing conversation only within DefaultSessionGap. It searches every
// kind (a person's stated facts and summaries are memories as much as their
// exchanges), in every state but archived, at normal sensitivity (a Request
// whose conversation is private widens its Filter), of any age (recency
// prefers fresh ones; a time expression finds old ones), and episodes dated
// after today too. Its store segments Japanese with kagome,
// Chinese and Korean into bigrams, and stems English (tokenize.DefaultAnalyzer).
func DefaultOptions() Options {
	o := ReferenceOptions()
	o.Vector.Timeout = DefaultEmbedTimeout
	o.Vector.FallbackBM25 = true
	o.BM25.MessageFirst = true
	o.BM25.MaxRows = DefaultMaxMatchRows
	o.BM25.MaxPostings = DefaultMaxPostings
	o.BM25.MaxTermShare = DefaultMaxTermShare
	o.Context.ExcludeRecent = true
	o.Context.OtherRoles = false
	o.Context.SessionGap = DefaultSessionGap
	o.Filter.Kinds = nil // every kind: facts and summaries too
	o.Filter.MaxSensitivity = episode.SensitivityNormal
	o.Filter.MaxAgeDays = 0 // a memory is not lost to age: recency prefers fresh episodes
	o.Filter.UntilToday = false
	o.TimeAware = true
	o.SkipSmallTalk = true
	o.Synonyms = true
	o.Bridges = true
	o.Equivalents = true
	o.UnseenTerms = true
	o.LightTerms = true
	o.ReplyDiscount = DefaultReplyDiscount
	o.Forms = true
	o.Rank = rerank.DefaultOptions()
	return o
}

// Validate returns an error naming the first invalid option: a negative
// number, an unset field that cannot be off, or no arm at all.
func (o Options) Validate() error {
	for _, v := range []struct {
		name string
		val  float64
	}{
		{"Vector.K", float64(o.Vector.K)}, {"Vector.Timeout", float64(o.Vector.Timeout)},
		{"BM25.K", float64(o.BM25.K)}, {"BM25.MaxChars", float64(o.BM25.MaxChars)}, {"BM25.MaxTerms", float64(o.BM25.MaxTerms)},
		{"BM25.MaxRows", float64(o.BM25.MaxRows)}, {"BM25.MaxPostings", float64(o.BM25.MaxPostings)},
		{"BM25.MaxTermShare", o.BM25.MaxTermShare},
		{"Context.Episodes", float64(o.Context.Episodes)}, {"Context.Messages", float64(o.Context.Messages)},
		{"Context.SessionGap", float64(o.Context.SessionGap)}, {"Filter.MaxAgeDays", float64(o.Filter.MaxAgeDays)},
		{"Expansion.Neighbours", float64(o.Expansion.Neighbours)}, {"Expansion.MinCosine", o.Expansion.MinCosine},
		{"Expansion.MaxTermShare", o.Expansion.MaxTermShare}, {"ReplyDiscount", o.ReplyDiscount},
	} {
		if v.val < 0 {
			return fmt.Errorf("option %s is %v, must be >= 0", v.name, v.val)
		}
	}
	if o.ReplyDiscount > 1 {
		return fmt.Errorf("option ReplyDiscount is %v, must be at most 1", o.ReplyDiscount)
	}
	if err := o.Filter.Validate(); err != nil {
		return fmt.Errorf("option Filter: %w", err)
	}
	if o.Expansion.Neighbours > 0 && o.Meaning == nil {
		return errors.New("option Expansion needs Meaning, the vectors whose neighbours it searches")
	}
	if o.Vector.K == 0 && o.BM25.K == 0 {
		return errors.New("options Vector.K and BM25.K are both 0: nothing would be searched")
	}
	return o.Rank.Validate()
}

// location returns o.Location, or UTC.
func (o Options) location() *time.Location {
	if o.Location == nil {
		return time.UTC
	}
	return o.Location
}

// Unsearched counts the episodes a filter leaves out of every search
// whatever their age, each under the first reason that holds.
type Unsearched struct {
	Sensitive int `json:"sensitive"` // more private than MaxSensitivity
	States    int `json:"states"`    // in a state the filter leaves out (archived, in the default preset)
	Kinds     int `json:"kinds"`     // of a kind the filter leaves out
}

// Total is the number of episodes left out.
func (u Unsearched) Total() int { return u.Sensitive + u.States + u.Kinds }

// String says what is left out, e.g. "3 (2 private or secret, 1 archived or
// another state)"; "0" when nothing is.
func (u Unsearched) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{u.Sensitive, "more private than the filter admits"}, {u.States, "in a state it leaves out"}, {u.Kinds, "of a kind it leaves out"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if parts == nil {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", u.Total(), strings.Join(parts, ", "))
}

// Unsearched counts what f leaves out of the episodes of classes.
func (f Filter) Unsearched(classes []episode.Class) Unsearched {
	var u Unsearched
	for _, c := range classes {
		switch {
		case c.Sensitivity > f.MaxSensitivity:
			u.Sensitive += c.Episodes
		case len(f.States) > 0 && !slices.Contains(f.States, c.State):
			u.States += c.Episodes
		case len(f.Kinds) > 0 && !slices.Contains(f.Kinds, c.Kind):
			u.Kinds += c.Episodes
		}
	}
	return u
}
