// Package retriever finds the past episodes worth reminding a chat model of,
// given a person's new message and the recent conversation: two fixed queries,
// vector KNN and BM25 for each, then the ranking of package rerank (fusion,
// score, neighbours, gate, selection), as the reference design does
// (the reference design: docs/architecture.md).
//
// A retrieval runs in stages, each in its own file: prepare (queries.go: the
// message, its time window, the context and the queries), search (search.go:
// both arms for both queries), fuse, fetch (fetch.go: the candidates'
// episodes, n-grams and term coverage), score, gate and pick (rank.go).
package retriever

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/ngram"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/rrf"
	"github.com/omoide/omoide/thesaurus"
	"github.com/omoide/omoide/tokenize"
)

// Store is what a Retriever needs of an episode store; *sqlite.Store is one.
type Store interface {
	Embedder() embed.Embedder
	Analyzer() tokenize.Analyzer
	Conversation(ctx context.Context, user string, n int, f episode.SearchFilter) ([]episode.Episode, error)
	Nearest(ctx context.Context, user string, vecs [][]float32, k int, f episode.SearchFilter) ([][]episode.Match, error)
	BM25(ctx context.Context, user string, terms []string, k int, f episode.SearchFilter) ([]episode.Match, error)
	DocFreq(ctx context.Context, terms []string) ([]int, int, error)
	Count(ctx context.Context, user string) (int, error)
	GetMany(ctx context.Context, ids []int64) ([]episode.Episode, error)
	GetManyTerms(ctx context.Context, ids []int64) ([]episode.Episode, []episode.Terms, error)
	Between(ctx context.Context, user string, limit int, f episode.SearchFilter) ([]episode.Episode, error)
	Holds(ctx context.Context, user string, terms []string) ([]bool, error)
	Adjacent(ctx context.Context, user string, ids []int64) ([][2]int64, error)
}

// Message is one message of the recent conversation.
type Message struct {
	Role    string // "user", or "assistant" ("persona" too); other roles: see Context.OtherRoles
	Content string
}

// Request is one retrieval.
type Request struct {
	User string // whose memory to search
	Text string // the person's new message
	// Recent is the conversation just before Text, oldest first. nil means:
	// use the person's last stored exchanges (Options.Context.Episodes of
	// them, with a reply and inside the filter's kinds, states and
	// sensitivity), as the reference does; an empty non-nil slice means:
	// there is no context.
	Recent []Message
	Now    time.Time // the clock; zero means time.Now()
	// Location is the person's time zone for this request: the days of its
	// time expressions ("昨日" is yesterday where the person lives) and of
	// the Filter.MaxAgeDays window. nil means Options.Location.
	Location *time.Location
	// WithCandidates asks for Result.Candidates, the whole ranked list, for
	// ranking metrics and tuning.
	WithCandidates bool
	// Filter, when not nil, replaces Options.Filter for this request: which
	// kinds, states and sensitivity levels are searched, and how old. A
	// conversation the person marked private widens MaxSensitivity to
	// episode.SensitivityPrivate; a caller looking only for facts narrows
	// Kinds.
	Filter *Filter
	// InjectThreshold, when not nil, replaces Options.Rank.Inject.Threshold
	// for this request (0 to 1; with a relevance model only).
	InjectThreshold *float64
	// Lang is the language of the message where its script does not tell
	// (lang.Parse; lang.Detect reads Han alone as it): a Japanese person's
	// 東京都庁 is read as Japanese words, not as Chinese bigrams that hold
	// 京都, and the plan words of 週末予定確認 as Japanese (timeexpr.ParseLang,
	// smalltalk.NeedsMemoryLang). "" leaves the store's analyzer's language
	// (tokenize.LanguageReader's Language: Japanese for cjk2+ja), or none; an
	// analyzer that is no tokenize.LanguageReader reads its terms without it.
	Lang lang.Language
}

// MaxMessageBytes is how much of a message, and of each recent turn, a
// retrieval reads: an episode's bound (episode.MaxTextBytes). A longer one
// (a pasted article) is searched by its head, so that no retrieval embeds
// and compares megabytes; the trace says so (Trace.Clipped).
const MaxMessageBytes = episode.MaxTextBytes

// clipMessage returns s cut to at most MaxMessageBytes, at a character
// boundary, and whether it was cut.
func clipMessage(s string) (string, bool) {
	if len(s) <= MaxMessageBytes {
		return s, false
	}
	n := MaxMessageBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// Validate returns an error naming what is wrong with the request: a user
// that is empty, too long or not valid UTF-8, a message or recent turn that
// is not valid UTF-8, an invalid Filter or InjectThreshold. Retrieve calls
// it first.
func (q Request) Validate() error {
	if err := episode.CheckUser(q.User); err != nil {
		return err
	}
	switch l, err := lang.Parse(string(q.Lang)); {
	case !utf8.ValidString(q.Text):
		return errors.New("message text is not valid UTF-8")
	case err != nil || l != q.Lang:
		return fmt.Errorf("lang %q: want ja, zh, ko or \"\" (lang.Parse)", q.Lang)
	case q.InjectThreshold != nil && !(*q.InjectThreshold >= 0 && *q.InjectThreshold <= 1):
		return fmt.Errorf("inject threshold %v: want a probability from 0 to 1", *q.InjectThreshold)
	}
	for i, m := range q.Recent {
		if !utf8.ValidString(m.Content) || !utf8.ValidString(m.Role) {
			return fmt.Errorf("recent[%d] is not valid UTF-8", i)
		}
	}
	if q.Filter != nil {
		if err := q.Filter.Validate(); err != nil {
			return fmt.Errorf("filter: %w", err)
		}
	}
	return nil
}

// Hit is one ranked episode with its score and the parts it is made of.
type Hit struct {
	Episode episode.Episode
	// Relevance is High for the first pick, and with a relevance model
	// (rerank.Inject) for any as probable as a retrieval must be; Medium for
	// the others; 0 for a candidate.
	Relevance rerank.Relevance
	Reason    string // why it was picked; "" for a candidate
	// Probability is the relevance model's P(relevant) of the episode (the
	// default preset's rerank.Inject), 0 without a model or beyond the
	// candidates it judges.
	Probability float64
	// Score is the final rerank score: rerank.Weights.Final of the parts, or
	// the floor a strong neighbour raised it to (rerank.Neighbors).
	Score float64
	rerank.Parts
	// Verdict is what the decision did with a candidate and why: set in
	// Result.Candidates only.
	Verdict rerank.Verdict
}

// Trace records what each stage did, for people and tools; the pipeline
// writes it and never reads it. Durations of the arms are wall-clock times of
// their concurrent queries.
type Trace struct {
	Skipped string // why retrieval did not run, if it did not
	// Clipped says what was read only up to MaxMessageBytes, if anything.
	Clipped    string
	Degraded   string   // why the vector arm did not run (BM25 and the rerank went on), if it did not
	Window     string   // the time expression read in the message and its window, if any
	Queries    []string // Q1 and, when there is context, Q2
	BM25Match  []string // the FTS5 expression per query ("" when it had no terms)
	KNNHits    []int    // hits per query
	BM25Hits   []int
	Candidates int // after fusion
	Fetched    int // candidates still in the store
	Echoes     int // candidates dropped as already in the recent conversation
	Neighbors  int // candidates raised for being next to one of the first (rerank.Neighbors), or added
	// NeighborsAdded of them no search had found (Neighbors.Fetch).
	NeighborsAdded int
	Gated          int // candidates dropped by the gate or the relevance model
	// Declined says why the gate or the relevance model dropped them, if it
	// did.
	Declined string
	// Probability is the relevance model's probability that one of the
	// first candidates is relevant (rerank.Inject.Any), when it decides.
	Probability float64
	// Decision is Retriever.Decision: the rules, or which relevance model
	// decided and the embedder it was fitted for.
	Decision string
	// UnknownNames are the names in the message that none of the person's
	// episodes holds, looked up when the gate checks names or the relevance
	// model weighs them.
	UnknownNames []string
	Picked       int
	// Prepare is the time from the request to the searches: the recent
	// conversation, the time window, the queries and their BM25 terms
	// (analysis and document frequencies).
	Prepare time.Duration
	Embed   time.Duration
	KNN     time.Duration
	BM25    time.Duration
	Fuse    time.Duration
	// Fetch is reading the candidates, with their n-grams and coverage.
	Fetch time.Duration
	// Rerank is scoring, the neighbours (read too), the gate and the picks.
	Rerank time.Duration
	Total  time.Duration
}

// Result is the outcome of a retrieval.
type Result struct {
	Hits []Hit
	// Candidates is every fetched candidate in rank order, before the gate,
	// the thresholds and the dedupe, when the request asked for it.
	Candidates []Hit
	// Ranked is the same list as the ranking scored it (with each
	// candidate's n-grams and fusion order), and Signals what the retrieval
	// measured of the message, when the request asked for candidates:
	// cmd/bench replays the ranking offline from them and fits the
	// relevance model on their features (rerank.Features).
	Ranked  []rerank.Scored
	Signals rerank.Signals
	// Searches is what the retrieval saw before its ranking (each search's
	// hits, the fusion), when the request asked for candidates.
	Searches Searches
	Trace    Trace
}

// Retriever runs the retrieval pipeline over a store. It is safe for
// concurrent use by multiple goroutines.
type Retriever struct {
	store        Store
	opts         Options
	lexical      bool               // the store's embedder is lexical (embed.IsLexical): Rank.Fusion weighs its lists as such
	thesaurus    tokenize.Thesaurus // the analyzer's synonyms, when Options.Synonyms and it has them
	bridges      *thesaurus.Table   // the word relations, when Options.Bridges or Equivalents
	lexicon      tokenize.Lexicon   // the analyzer's light terms and forms, when Options.LightTerms or Forms and it has them
	contextTerms termCache          // analyzed context messages, see termCache
	decision     string             // which relevance model decides, for whom it was fitted (Decision)
}

// retrieval is one request's state as it moves through the stages, each
// stage filling the fields of its own.
type retrieval struct {
	*Retriever
	tr *Trace // written by the stages, never read

	// the request
	opts           Options           // the Retriever's, with the request's Filter and InjectThreshold
	user, text     string            // whose memory; the message, trimmed
	analyzer       tokenize.Analyzer // the message's: the store's, or as the request's Lang reads it
	lang           lang.Language     // the message's where its script does not tell: the request's Lang, else the store analyzer's
	now            time.Time         // the request's clock
	withCandidates bool

	// prepare
	filter    episode.SearchFilter  // the arms' filter
	window    *episode.SearchFilter // the filter inside the message's time window, if it names one
	timeTerms []string              // the terms of the message's time expression (queryTexts.withoutTimeTerms)
	recent    []Message             // the recent conversation
	recentIDs []int64               // the stored episodes that stood in for it
	q         queryTexts
	terms     [][]string // each query's BM25 terms, bounded
	bm25Any   bool       // one of them searches something

	// search, fuse
	arms  armResults
	fused []rrf.Scored

	// fetch: the fused candidates still stored, in fusion order
	cover   *termWeights // the message's terms, when coverage is measured
	meaning []float32    // the message's vector, when Options.Meaning measures it
	bridge  *bridgeWords // the message's words the thesaurus knows, when Options.Bridges measures them
	eps     []episode.Episode
	grams   []ngram.Set
	matches []termMatch

	// score, gate, pick
	rankStart time.Time
	echo      echoFilter                // the recent conversation's episodes, when they are excluded
	byID      map[int64]episode.Episode // the ranked candidates' episodes
	query     rerank.Query
	scored    []rerank.Scored
	unknown   []string         // the message's names the memory never held
	picks     []rerank.Pick    // what the decision picked (rerank.Options.Decide)
	verdicts  []rerank.Verdict // what it did with each ranked candidate, when candidates are asked for
	echoes    []int64          // the fused candidates dropped as echoes, when candidates are asked for
	gone      []int64          // the fused candidates deleted since the search or another person's, likewise
	probs     []float64        // the relevance model's of the first candidates (rerank.Inject)
}

// New returns a Retriever over store with opts, or an error naming the first
// invalid option. The zero Options is DefaultOptions(); in any other, a zero
// field is off (docs/architecture.md, "The zero rule").
func New(store Store, opts Options) (*Retriever, error) {
	if store == nil {
		return nil, errors.New("retriever: nil store")
	}
	if reflect.ValueOf(opts).IsZero() {
		opts = DefaultOptions()
	}
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("retriever: %w", err)
	}
	if opts.Meaning != nil && opts.Meaning.Analyzer() != store.Analyzer().Name() {
		return nil, fmt.Errorf("retriever: option Meaning: the vectors are of the terms of analyzer %s, the store's is %s", opts.Meaning.Analyzer(), store.Analyzer().Name())
	}
	r := &Retriever{store: store, opts: opts, lexical: embed.IsLexical(store.Embedder())}
	if err := r.chooseModel(); err != nil {
		return nil, err
	}
	if th, ok := store.Analyzer().(tokenize.Thesaurus); ok && opts.Synonyms {
		// load the synonyms now, as the store loads its dictionary at
		// Open, so that the first retrieval does not pay for them
		if err := th.LoadSynonyms(); err != nil {
			return nil, fmt.Errorf("retriever: %w", err)
		}
		r.thesaurus = th
	}
	if opts.Bridges || opts.Equivalents {
		var err error
		if r.bridges, err = thesaurus.Default(); err != nil {
			return nil, fmt.Errorf("retriever: options Bridges and Equivalents: %w", err)
		}
	}
	if lx, ok := store.Analyzer().(tokenize.Lexicon); ok && (opts.LightTerms || opts.Forms) {
		r.lexicon = lx
	}
	return r, nil
}

// chooseModel sets the relevance model that decides for the store's
// embedder (ModelFor).
func (r *Retriever) chooseModel() error {
	id := ""
	if e := r.store.Embedder(); e != nil {
		id = e.Identity().String()
	}
	m, what, err := ModelFor(r.opts.Rank.Inject.Model, id, r.lexical)
	if err != nil {
		return fmt.Errorf("retriever: %w", err)
	}
	r.opts.Rank.Inject.Model, r.decision = m, what
	return nil
}

// ErrModelEmbedder is ModelFor's error for a relevance model given for a
// store whose embedder it was not fitted for.
var ErrModelEmbedder = errors.New("the relevance model given was fitted for another embedder")

// ModelFor returns the relevance model that decides for a store whose
// embedder's identity is id (lexical: embed.IsLexical), and says which it
// is. A nil m (the rules decide) stays nil. A model the module ships
// (rerank.Shipped: the preset's) gives way to the shipped model fitted for
// id, else for a semantic embedder to rerank.DefaultSemanticModel (which
// reads where a cosine stands, not its scale), else to the embedder-free
// rerank.DefaultLexicalModel: a model fitted on one embedder's cosines reads
// another's on the wrong scale. Any other model, one fitted by bench train
// and given, must suit id (fitted for it, for any embedder, or for any
// semantic one and id is not lexical): one fitted for another embedder is
// an error naming both. An unknown embedder ("") keeps m.
func ModelFor(m *rerank.Model, id string, lexical bool) (*rerank.Model, string, error) {
	switch {
	case m == nil:
		return nil, "rules (no relevance model)", nil
	case m.Suits(id) || id == "" || m.FittedFor() == rerank.AnySemantic && !lexical:
		return m, "relevance model fitted for " + cmp.Or(m.FittedFor(), "an embedder it does not name"), nil
	case !rerank.Shipped(m):
		return nil, "", fmt.Errorf("%w: it was fitted for %s, the store's embedder is %s: fit one for it (bench train -embedder … -o FILE) or give none", ErrModelEmbedder, m.FittedFor(), id)
	}
	if sm, err := rerank.ShippedModelFor(id); err != nil {
		return nil, "", err
	} else if sm != nil {
		return sm, "relevance model fitted for " + sm.FittedFor(), nil
	}
	fallback, what := rerank.DefaultLexicalModel, "embedder-free relevance model"
	if !lexical {
		fallback, what = rerank.DefaultSemanticModel, "semantic-embedder relevance model"
	}
	fm, err := fallback()
	if err != nil {
		return nil, "", fmt.Errorf("the %s: %w", what, err)
	}
	return fm, fmt.Sprintf("%s (the preset's model was fitted for %s, the store's embedder is %s)", what, m.FittedFor(), id), nil
}

// Decision says what decides what is injected: the rules, or which
// relevance model and the embedder it was fitted for.
func (r *Retriever) Decision() string { return r.decision }

// Options returns the retriever's options.
func (r *Retriever) Options() Options { return r.opts }

// Retrieve returns the episodes of req.User worth reminding the model of.
// Empty or whitespace-only text returns no episodes and no error.
func (r *Retriever) Retrieve(ctx context.Context, req Request) (res Result, err error) {
	start := time.Now()
	defer func() { res.Trace.Total = time.Since(start) }()
	rt, err := r.prepare(ctx, req, &res)
	if err != nil || rt == nil {
		return res, err // an error, or nothing to search: skipped, or the time window's episodes
	}
	if err := rt.search(ctx); err != nil {
		return res, err
	}
	if rt.fuse(); len(rt.fused) == 0 {
		if rt.withCandidates {
			rt.searches(&res)
		}
		return res, nil
	}
	if err := rt.fetch(ctx); err != nil {
		return res, err
	}
	if err := rt.score(ctx); err != nil {
		return res, err
	}
	if err := rt.gate(ctx); err != nil {
		return res, err
	}
	rt.pick(&res)
	return res, nil
}
