// Package retriever finds the past episodes worth reminding a chat model of,
// given a person's new message and the recent conversation: two fixed queries,
// vector KNN and BM25 for each, reciprocal rank fusion, a lexical and recency
// rerank, and a thresholded selection (../shared/design/reference-retrieval.md).
package retriever

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/ngram"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/rrf"
	"github.com/omoide/omoide/smalltalk"
	"github.com/omoide/omoide/timeexpr"
	"github.com/omoide/omoide/tokenize"
)

// Store is what a Retriever needs of an episode store; *episode.Store is one.
type Store interface {
	Embedder() embed.Embedder
	Analyzer() tokenize.Analyzer
	Recent(ctx context.Context, user string, n int) ([]episode.Episode, error)
	Nearest(ctx context.Context, user string, vecs [][]float32, k int, f episode.Filter) ([][]episode.Hit, error)
	BM25(ctx context.Context, user string, terms []string, k int, f episode.Filter) ([]episode.Hit, error)
	DocFreq(ctx context.Context, terms []string) ([]int, int, error)
	Count(ctx context.Context, user string) (int, error)
	IndexedTerms(ctx context.Context, ids []int64) ([][]string, error)
	GetMany(ctx context.Context, ids []int64) ([]episode.Episode, error)
	Between(ctx context.Context, user string, limit int, f episode.Filter) ([]episode.Episode, error)
	Holds(ctx context.Context, user string, terms []string) ([]bool, error)
	Adjacent(ctx context.Context, user string, ids []int64) ([][2]int64, error)
}

// Message is one message of the recent conversation.
type Message struct {
	Role    string // "user" or "assistant"; other roles are ignored
	Content string
}

// Request is one retrieval.
type Request struct {
	User string // whose memory to search
	Text string // the person's new message
	// Recent is the conversation just before Text, oldest first. nil means:
	// use the person's last stored episodes, as the reference does; an empty
	// non-nil slice means: there is no context.
	Recent []Message
	Now    time.Time // the clock; zero means time.Now()
	// Location is the person's time zone for this request: the days of its
	// time expressions ("昨日" is yesterday where the person lives) and of
	// the MaxAgeDays window. nil means Options.Location.
	Location *time.Location
	// WithCandidates asks for Result.Candidates, the whole reranked list, for
	// ranking metrics and tuning.
	WithCandidates bool
}

// Hit is one selected episode with its score parts.
type Hit struct {
	Episode   episode.Episode
	Relevance memorypack.Relevance // High for the first pick, Medium after
	Reason    string
	Score     float64 // the final rerank score
	// Boost is the time-window bonus inside Score (TimeBoost or 0). Score
	// is WeightRRF·RRFNorm + WeightLex·Lex + WeightRecency·Rec + Boost,
	// unless NeighborShare raised it.
	Boost   float64
	RRF     float64 // the fused score
	RRFNorm float64
	Lex     float64
	Rec     float64
	// Cosine is the cosine similarity to the message alone when the
	// message's vector search found the episode, else 0.
	Cosine float64
	// LexMessage is the trigram Dice of the message alone (no context) with
	// the episode, computed when a gate is set or candidates are asked for.
	LexMessage float64
	// Coverage is the IDF-weighted share of the message's terms that the
	// episode's indexed terms hold (the gate's lexical evidence), computed
	// for the first candidates when a gate is set or candidates are asked
	// for.
	Coverage float64
	// Proximity is the IDF-weighted share of the message's adjacent term
	// pairs that the episode holds close together and in order, computed
	// with Coverage.
	Proximity float64
	// InWindow: the episode happened inside the time window the message
	// names ("先週", "in May"; TimeAware).
	InWindow bool
}

// Trace records what each stage did, for tuning. Durations of the arms are
// wall-clock times of their concurrent queries.
type Trace struct {
	Skipped    string   // why retrieval did not run, if it did not
	Degraded   string   // why the vector arm did not run (BM25 and the rerank went on), if it did not
	Window     string   // the time expression read in the message and its window, if any
	Queries    []string // Q1 and, when there is context, Q2
	BM25Match  []string // the FTS5 expression per query ("" when it had no terms)
	KNNHits    []int    // hits per query
	BM25Hits   []int
	Candidates int // after fusion
	Fetched    int // candidates still in the store
	Echoes     int // candidates dropped as already in the recent conversation
	Neighbors  int // candidates raised for being next to one of the first (NeighborShare), or added
	// NeighborsAdded of them no search had found (NeighborFetch).
	NeighborsAdded int
	Gated          int // candidates dropped by the gate
	// Declined says why the gate dropped them, if it did.
	Declined string
	// UnknownNames are the names in the message that none of the person's
	// episodes holds, looked up when the gate checks names.
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
	// Rerank is scoring, the neighbours (read too) and the gate.
	Rerank time.Duration
	Total  time.Duration
}

// Result is the outcome of a retrieval.
type Result struct {
	Hits []Hit
	// Candidates is every fetched candidate in rerank order, before the
	// thresholds and the dedupe, when the request asked for it. Relevance and
	// Reason are unset.
	Candidates []Hit
	Trace      Trace
}

// Evidence returns the hits as MemoryPack evidence.
func (r Result) Evidence() []memorypack.Evidence {
	out := make([]memorypack.Evidence, len(r.Hits))
	for i, h := range r.Hits {
		out[i] = memorypack.Evidence{
			OccurredAt: h.Episode.OccurredAt,
			UserText:   h.Episode.UserText,
			ReplyText:  h.Episode.ReplyText,
			Relevance:  h.Relevance,
			Reason:     h.Reason,
		}
	}
	return out
}

// Retriever runs the retrieval pipeline over a store. It is safe for
// concurrent use by multiple goroutines.
type Retriever struct {
	store        Store
	opts         Options
	knnWeight    float64            // opts.KNNWeight resolved for the store's embedder
	thesaurus    tokenize.Thesaurus // the analyzer's synonyms, when opts.Synonyms and it has them
	contextTerms termCache          // analyzed context messages, see termCache
}

// New returns a Retriever over store with opts, or an error naming the first
// invalid option.
func New(store Store, opts Options) (*Retriever, error) {
	if store == nil {
		return nil, errors.New("retriever: nil store")
	}
	for _, v := range []struct {
		name string
		val  int
	}{
		{"KNNK", opts.KNNK}, {"BM25K", opts.BM25K}, {"RRFK", opts.RRFK}, {"MaxCandidates", opts.MaxCandidates},
		{"RecentEpisodes", opts.RecentEpisodes}, {"ContextMessages", opts.ContextMessages},
		{"MaxQueryChars", opts.MaxQueryChars}, {"MaxQueryTerms", opts.MaxQueryTerms}, {"MaxAgeDays", opts.MaxAgeDays},
		{"Rerank.MaxResults", opts.Rerank.MaxResults},
	} {
		if v.val < 0 {
			return nil, fmt.Errorf("retriever: option %s is %d, must be >= 0", v.name, v.val)
		}
	}
	if opts.KNNK == 0 && opts.BM25K == 0 {
		return nil, errors.New("retriever: both KNNK and BM25K are 0: nothing would be searched")
	}
	if opts.KNNWeight < 0 {
		return nil, fmt.Errorf("retriever: option KNNWeight is %g, must be >= 0", opts.KNNWeight)
	}
	r := &Retriever{store: store, opts: opts, knnWeight: opts.KNNWeight}
	if th, ok := store.Analyzer().(tokenize.Thesaurus); ok && opts.Synonyms {
		// load the synonyms now, as the store loads its dictionary at
		// Open, so that the first retrieval does not pay for them
		if err := th.LoadSynonyms(); err != nil {
			return nil, fmt.Errorf("retriever: %w", err)
		}
		r.thesaurus = th
	}
	if r.knnWeight == 0 {
		r.knnWeight = 1
		if embed.IsLexical(store.Embedder()) {
			r.knnWeight = DefaultLexicalKNNWeight
		}
	}
	return r, nil
}

// Options returns the retriever's options.
func (r *Retriever) Options() Options { return r.opts }

// Retrieve returns the episodes of req.User worth reminding the model of.
// Empty or whitespace-only text returns no episodes and no error.
func (r *Retriever) Retrieve(ctx context.Context, req Request) (res Result, err error) {
	start := time.Now()
	tr := &res.Trace
	defer func() { tr.Total = time.Since(start) }()

	if !utf8.ValidString(req.Text) {
		return res, errors.New("retriever: message text is not valid UTF-8")
	}
	text := strings.TrimFunc(req.Text, pytext.IsSpace)
	if text == "" {
		tr.Skipped = "empty message"
		return res, nil
	}
	if r.opts.SkipSmallTalk && !smalltalk.NeedsMemory(text) {
		tr.Skipped = "small talk"
		return res, nil
	}
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	loc := req.Location
	if loc == nil {
		loc = r.opts.location()
	}
	filter := r.filter(now, loc)
	var window *episode.Filter
	if r.opts.TimeAware {
		if w, ok := timeexpr.Parse(text, now, loc); ok {
			tr.Window = fmt.Sprintf("%s [%s, %s)", w.Expr, w.From.Format(time.RFC3339), w.To.Format(time.RFC3339))
			wf := filter
			wf.Since, wf.Until = w.From, w.To
			if filter.Since.After(w.From) {
				wf.Since = filter.Since
			}
			window = &wf
			if w.Only {
				return r.windowOnly(ctx, req.User, w.Expr, wf, res)
			}
		}
	}
	recent := req.Recent
	var recentIDs []int64
	if recent == nil && r.opts.RecentEpisodes > 0 {
		eps, err := r.store.Recent(ctx, req.User, r.opts.RecentEpisodes)
		if err != nil {
			return res, fmt.Errorf("retriever: %w", err)
		}
		recent = MessagesOf(eps)
		for _, e := range eps {
			recentIDs = append(recentIDs, e.ID)
		}
	}
	q := r.queries(text, recent)
	tr.Queries = q.texts

	tr.Prepare = time.Since(start) // search adds the BM25 terms
	arms, err := r.search(ctx, req.User, q, filter, window, tr)
	if err != nil {
		return res, err
	}

	t := time.Now()
	fused := rrf.FuseWeighted(r.opts.RRFK, r.opts.MaxCandidates, arms.weights(r.knnWeight), arms.lists()...)
	tr.Fuse = time.Since(t)
	tr.Candidates = len(fused)
	if len(fused) == 0 {
		return res, nil
	}

	t = time.Now()
	measure := r.opts.Rerank.WeightCoverage > 0 || r.opts.Rerank.WeightProximity > 0 || r.opts.Gate.thresholds() || req.WithCandidates
	var cover *termWeights // the message's terms, when coverage is measured
	if measure {
		terms := q.terms[0] // the message's, unless clipped for BM25
		if utf8.RuneCountInString(pytext.Compact(text)) > r.opts.MaxQueryChars {
			terms = r.store.Analyzer().Terms(text)
		}
		if cover, err = r.termWeights(ctx, terms); err != nil {
			return res, err
		}
	}
	ids := make([]int64, len(fused))
	for i, f := range fused {
		ids[i] = f.ID
	}
	eps, grams, covs, err := r.fetch(ctx, ids, cover)
	if err != nil {
		return res, err
	}
	tr.Fetch = time.Since(t)
	tr.Fetched = len(eps)

	t = time.Now()
	var echo echoFilter
	if r.opts.ExcludeRecent {
		echo = newEchoFilter(recentIDs, recent)
	}
	inWindow := func(e episode.Episode) bool {
		return window != nil && !e.OccurredAt.Before(window.Since) && e.OccurredAt.Before(window.Until)
	}
	candidate := func(e episode.Episode, g ngram.Set, rrfScore float64, m termMatch) rerank.Candidate {
		c := rerank.Candidate{ID: e.ID, RRF: rrfScore, UserText: e.UserText, ReplyText: e.ReplyText, OccurredAt: e.OccurredAt, Grams: g,
			Coverage: m.coverage, Proximity: m.proximity}
		if inWindow(e) {
			c.Boost = r.opts.TimeBoost
		}
		return c
	}
	cands := make([]rerank.Candidate, 0, len(eps))
	byID := make(map[int64]episode.Episode, len(eps))
	j := 0
	for _, f := range fused {
		if j >= len(eps) || eps[j].ID != f.ID {
			continue // deleted since the search
		}
		e, g, cov := eps[j], grams[j], covs[j]
		j++
		if e.User != req.User {
			continue // never another person's episode, whatever an index said
		}
		if echo.is(e) {
			tr.Echoes++
			continue
		}
		byID[e.ID] = e
		cands = append(cands, candidate(e, g, f.Score, cov))
	}
	ro := r.opts.Rerank
	queryGrams := ro.QueryGrams(q.rerank)
	scored := rerank.Score(queryGrams, cands, now, ro)
	var raised []int64 // candidates NeighborShare raised or added
	if r.opts.NeighborShare > 0 && len(scored) > 0 {
		// neighbours no search found, fetched: they pass the same filters
		// and are scored as the others (with no fused score)
		more := func(ids []int64) ([]rerank.Scored, error) {
			eps, grams, covs, err := r.fetch(ctx, ids, cover)
			if err != nil {
				return nil, err
			}
			var add []rerank.Candidate
			for i, e := range eps {
				if e.User != req.User || !filter.Admits(e) || echo.is(e) {
					continue
				}
				byID[e.ID] = e
				add = append(add, candidate(e, grams[i], 0, covs[i]))
			}
			return rerank.Score(queryGrams, add, now, ro), nil
		}
		if scored, raised, err = r.neighbors(ctx, req.User, scored, more, tr); err != nil {
			return res, err
		}
	}
	var msgGrams ngram.Set
	depth := 0 // of the first candidates, the gate looks at this many
	if measure {
		msgGrams = ro.QueryGrams(text)
		depth = min(len(scored), r.opts.Gate.depth(ro.MaxResults))
	}
	hit := func(sc rerank.Scored) Hit {
		e := byID[sc.ID]
		h := Hit{Episode: e, Score: sc.Final, Boost: sc.Boost, RRF: sc.RRF, RRFNorm: sc.RRFNorm, Lex: sc.Lex, Rec: sc.Rec,
			Coverage: sc.Coverage, Proximity: sc.Proximity, Cosine: arms.cosine(sc.ID), InWindow: inWindow(e)}
		if msgGrams != nil {
			h.LexMessage = ngram.Dice(msgGrams, sc.Grams())
		}
		return h
	}
	if req.WithCandidates {
		res.Candidates = make([]Hit, len(scored))
		for i, sc := range scored {
			res.Candidates[i] = hit(sc)
		}
	}
	if r.opts.Gate.UnknownNames && len(scored) > 0 {
		if tr.UnknownNames, err = r.unknownNames(ctx, req.User, text); err != nil {
			return res, err
		}
	}
	switch g := r.opts.Gate; {
	case len(scored) == 0:
	case len(tr.UnknownNames) > 0:
		tr.Declined = fmt.Sprintf("the memory holds no %q", tr.UnknownNames)
	case g.thresholds() && !slices.ContainsFunc(scored[:depth], func(sc rerank.Scored) bool { return g.admits(hit(sc)) }):
		tr.Declined = fmt.Sprintf("no candidate of the first %d has coverage %.2f or cosine %.2f, or is inside the message's time window", depth, g.MinCoverage, g.MinCosine)
	}
	if tr.Declined != "" { // the gate said no: nothing is injected
		tr.Gated = len(scored)
		scored = nil
	}
	picks := rerank.Select(scored, ro)
	tr.Rerank = time.Since(t)
	tr.Picked = len(picks)

	res.Hits = make([]Hit, len(picks))
	for i, p := range picks {
		h := hit(p.Scored)
		h.Relevance = memorypack.Medium
		if p.High {
			h.Relevance = memorypack.High
		}
		h.Reason = p.Reason()
		if slices.Contains(raised, p.ID) {
			h.Reason += " (raised: next to a stronger match)"
		}
		res.Hits[i] = h
	}
	return res, nil
}

// neighbors raises each candidate that is adjacent in time to one of the
// first MaxResults candidates, and no further from it than NeighborGap, to at
// least NeighborShare of that one's score. The neighbours of the first
// NeighborFetch candidates that are not candidates go to more, which reads and
// scores those that still exist and pass the filters; they are added with the
// same floor and gap. It sorts again (ties keep their order) and returns the
// ids it raised or added.
func (r *Retriever) neighbors(ctx context.Context, user string, scored []rerank.Scored, more func([]int64) ([]rerank.Scored, error), tr *Trace) ([]rerank.Scored, []int64, error) {
	n := min(len(scored), max(1, r.opts.Rerank.MaxResults))
	anchors := make([]int64, n)
	for i := range anchors {
		anchors[i] = scored[i].ID
	}
	adj, err := r.store.Adjacent(ctx, user, anchors)
	if err != nil {
		return nil, nil, fmt.Errorf("retriever: neighbours: %w", err)
	}
	var raised, missing []int64
	var floors []float64     // of missing
	var anchorAt []time.Time // of missing
	near := func(a, b time.Time) bool {
		d := a.Sub(b)
		return r.opts.NeighborGap <= 0 || (d <= r.opts.NeighborGap && d >= -r.opts.NeighborGap)
	}
	for i, pair := range adj {
		floor := r.opts.NeighborShare * scored[i].Final
		for _, id := range pair {
			if id == 0 {
				continue
			}
			j := slices.IndexFunc(scored, func(s rerank.Scored) bool { return s.ID == id })
			switch {
			case j >= n && scored[j].Final < floor && near(scored[j].OccurredAt, scored[i].OccurredAt):
				scored[j].Final = floor
				if !slices.Contains(raised, id) {
					raised = append(raised, id)
				}
			case j < 0 && i < r.opts.NeighborFetch:
				if k := slices.Index(missing, id); k >= 0 {
					floors[k] = max(floors[k], floor)
				} else {
					missing = append(missing, id)
					floors = append(floors, floor)
					anchorAt = append(anchorAt, scored[i].OccurredAt)
				}
			}
		}
	}
	if len(missing) > 0 {
		added, err := more(missing)
		if err != nil {
			return nil, nil, fmt.Errorf("retriever: neighbours: %w", err)
		}
		added = slices.DeleteFunc(added, func(a rerank.Scored) bool { return !near(a.OccurredAt, anchorAt[slices.Index(missing, a.ID)]) })
		for _, a := range added {
			a.Final = max(a.Final, floors[slices.Index(missing, a.ID)])
			scored = append(scored, a)
			raised = append(raised, a.ID)
		}
		tr.NeighborsAdded = len(added)
	}
	slices.SortStableFunc(scored, func(a, b rerank.Scored) int { return cmp.Compare(b.Final, a.Final) })
	tr.Neighbors = len(raised)
	return scored, raised, nil
}

// unknownNames returns the names in text (when the store's analyzer finds
// names) that none of user's episodes holds.
func (r *Retriever) unknownNames(ctx context.Context, user, text string) ([]string, error) {
	nf, ok := r.store.Analyzer().(tokenize.NameFinder)
	if !ok {
		return nil, nil
	}
	names := nf.Names(text)
	if len(names) == 0 {
		return nil, nil
	}
	held, err := r.store.Holds(ctx, user, names)
	if err != nil {
		return nil, fmt.Errorf("retriever: gate: %w", err)
	}
	var unknown []string
	for i, n := range names {
		if !held[i] {
			unknown = append(unknown, n)
		}
	}
	return unknown, nil
}

// fetchParts is how many concurrent reads fetch the candidates; fetchPart is
// the fewest candidates worth a read of their own.
const (
	fetchParts = 2
	fetchPart  = 16
)

// fetch returns the episodes of ids still in the store, in the order of ids,
// with each one's rerank n-grams and, when cover is not nil, its coverage of
// the message and proximity. The candidates are read in up to fetchParts parts at once,
// each part's n-grams and coverage made as it arrives: the searches are over,
// and reading and n-gramming sixty episodes on one core left the other idle.
func (r *Retriever) fetch(ctx context.Context, ids []int64, cover *termWeights) ([]episode.Episode, []ngram.Set, []termMatch, error) {
	parts := min(fetchParts, max(1, len(ids)/fetchPart))
	eps, grams, covs, errs := make([][]episode.Episode, parts), make([][]ngram.Set, parts), make([][]termMatch, parts), make([]error, parts)
	read := func(p int) {
		part := ids[p*len(ids)/parts : (p+1)*len(ids)/parts]
		if eps[p], errs[p] = r.store.GetMany(ctx, part); errs[p] != nil {
			return
		}
		grams[p] = make([]ngram.Set, len(eps[p]))
		for i, e := range eps[p] {
			grams[p][i] = r.opts.Rerank.EpisodeGrams(e.UserText, e.ReplyText)
		}
		covs[p] = make([]termMatch, len(eps[p]))
		if cover == nil {
			return
		}
		got := make([]int64, len(eps[p]))
		for i, e := range eps[p] {
			got[i] = e.ID
		}
		held, err := r.store.IndexedTerms(ctx, got)
		if err != nil {
			errs[p] = fmt.Errorf("coverage: %w", err)
			return
		}
		var sc matchScratch
		for i := range held {
			covs[p][i] = cover.match(held[i], &sc)
		}
	}
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Go(func() { read(p) })
	}
	read(0)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, nil, fmt.Errorf("retriever: fetch candidates: %w", err)
	}
	return slices.Concat(eps...), slices.Concat(grams...), slices.Concat(covs...), nil
}

// termWeights are a message's distinct terms, sorted, with their IDF
// weights: idf(t) = ln(1 + N/(df(t)+1)) from the store's whole FTS index,
// 0 for a term no episode holds (in a young store that is most function
// words: it cannot tell candidates apart). With synonyms, a term and its
// synonyms are one class: df is the sum of theirs (at most N), and an
// episode holding any of them holds the term.
type termWeights struct {
	terms   []string
	weights []float64
	sum     float64
	// next[i] is the index of the term that follows terms[i] in the
	// message, -1 for the last; pairSum weighs every adjacent pair.
	next    []int
	pairSum float64
	// keys are the terms and their synonyms, sorted; keys[i] stands for
	// terms[owner[i]].
	keys  []string
	owner []int
}

// matchScratch is termWeights.match's working space.
type matchScratch struct {
	seen []bool
	idx  []int
}

// termMatch is how an episode's indexed terms match the message's.
type termMatch struct {
	coverage, proximity float64
}

// proximityWindow is how many indexed terms after a message term its
// successor in the message may come to count as near: the analyzers drop
// particles, so "梅雨の期間" is indexed as adjacent terms, and a window of 2
// lets one word stand between.
const proximityWindow = 2

// termWeights returns the weights of terms, or nil when they weigh nothing.
func (r *Retriever) termWeights(ctx context.Context, terms []string) (*termWeights, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	w := &termWeights{terms: slices.Clone(terms)}
	slices.Sort(w.terms)
	w.terms = slices.Compact(w.terms)
	type key struct {
		k string
		o int
	}
	var ks []key
	for i, t := range w.terms {
		ks = append(ks, key{t, i})
		if r.thesaurus != nil {
			for _, a := range r.thesaurus.Synonyms(t) {
				ks = append(ks, key{a, i})
			}
		}
	}
	slices.SortFunc(ks, func(a, b key) int { return strings.Compare(a.k, b.k) })
	w.keys, w.owner = make([]string, len(ks)), make([]int, len(ks))
	for i, k := range ks {
		w.keys[i], w.owner[i] = k.k, k.o
	}
	uniq := slices.Compact(slices.Clone(w.keys))
	df, total, err := r.store.DocFreq(ctx, uniq)
	if err != nil {
		return nil, fmt.Errorf("retriever: coverage: %w", err)
	}
	classDF := make([]int, len(w.terms))
	for i, k := range w.keys {
		j, _ := slices.BinarySearch(uniq, k)
		classDF[w.owner[i]] += df[j]
	}
	w.weights = make([]float64, len(w.terms))
	for i := range w.terms {
		if d := min(classDF[i], total); d > 0 {
			w.weights[i] = math.Log(1 + float64(total)/float64(d+1))
			w.sum += w.weights[i]
		}
	}
	if w.sum == 0 {
		return nil, nil
	}
	w.next = make([]int, len(w.terms))
	for i := range w.next {
		w.next[i] = -1
	}
	prev := -1
	for _, t := range terms {
		j, _ := slices.BinarySearch(w.terms, t)
		if prev >= 0 && prev != j && w.next[prev] < 0 && w.weights[prev] > 0 && w.weights[j] > 0 {
			w.next[prev] = j
			w.pairSum += w.weights[prev] + w.weights[j]
		}
		prev = j
	}
	return w, nil
}

// match returns the coverage and proximity of an episode whose indexed terms
// are held, in order. Coverage is the IDF-weighted share of the message's
// terms it holds, Σ idf(t) over the message terms it holds / Σ idf(t) over
// all of them. Rare words (names, topics) weigh more than the words every
// episode has, so the share says how much of what the message is about the
// episode speaks of. It is the gate's evidence and, weighed by
// Rerank.WeightCoverage, part of the score. Proximity is the same share over
// the message's adjacent term pairs, a pair held when its second term follows
// its first within proximityWindow terms (a held term that stands for two of
// the message's, through a shared synonym, counts for the first in the pair
// test). sc is reused from one call to the next.
func (w *termWeights) match(held []string, sc *matchScratch) termMatch {
	sc.seen = slices.Grow(sc.seen[:0], len(w.terms))[:len(w.terms)]
	sc.idx = slices.Grow(sc.idx[:0], len(held))[:len(held)]
	seen, idx := sc.seen, sc.idx
	clear(seen)
	var m termMatch
	got, pairs := 0.0, 0.0
	for p, t := range held {
		idx[p] = -1
		k, ok := slices.BinarySearch(w.keys, t)
		for ; ok && k < len(w.keys) && w.keys[k] == t; k++ {
			j := w.owner[k]
			if idx[p] < 0 {
				idx[p] = j
			}
			if !seen[j] {
				seen[j] = true
				got += w.weights[j]
			}
		}
	}
	m.coverage = got / w.sum
	if w.pairSum == 0 {
		return m
	}
	clear(seen) // now: the pair starting at j was found
	for p, j := range idx {
		if j < 0 || w.next[j] < 0 || seen[j] {
			continue
		}
		for q := p + 1; q < len(idx) && q <= p+proximityWindow; q++ {
			if idx[q] == w.next[j] {
				seen[j] = true
				pairs += w.weights[j] + w.weights[w.next[j]]
				break
			}
		}
	}
	m.proximity = pairs / w.pairSum
	return m
}

// windowOnly answers a message that is only a time reference ("先週何話し
// たっけ") with the newest episodes inside the window, up to MaxResults.
func (r *Retriever) windowOnly(ctx context.Context, user, expr string, f episode.Filter, res Result) (Result, error) {
	t := time.Now()
	eps, err := r.store.Between(ctx, user, r.opts.Rerank.MaxResults, f)
	if err != nil {
		return res, fmt.Errorf("retriever: %w", err)
	}
	res.Trace.Fetch = time.Since(t)
	res.Trace.Fetched, res.Trace.Picked = len(eps), len(eps)
	for i, e := range eps {
		rel := memorypack.Medium
		if i == 0 {
			rel = memorypack.High
		}
		res.Hits = append(res.Hits, Hit{Episode: e, Relevance: rel, Reason: "time window: " + expr})
	}
	return res, nil
}

// filter is the search filter at time now: the day window of MaxAgeDays in
// time zone loc (UTC day numbers in the reference).
func (r *Retriever) filter(now time.Time, loc *time.Location) episode.Filter {
	f := episode.Filter{Kinds: r.opts.Kinds, States: r.opts.States, MaxSensitivity: r.opts.MaxSensitivity}
	if r.opts.MaxAgeDays > 0 {
		y, m, d := now.In(loc).Date()
		f.Since = time.Date(y, m, d-r.opts.MaxAgeDays, 0, 0, 0, 0, loc)
	}
	return f
}

// queryTexts are a retrieval's query texts.
type queryTexts struct {
	texts []string // Q1 and, with context, Q2: what is embedded
	bm25  []string // the text each query's BM25 terms come from
	// terms are each query's BM25 terms, analyzed from its bm25 text clipped
	// to MaxQueryChars, before the MaxQueryTerms cut and the bounds of
	// queryTerms. terms[0] are the message's.
	terms  [][]string
	rerank string // the text the reranker compares episodes with
}

// queries builds Q1 = the message and, when there is context, Q2 = context +
// separator + message. With MessageFirstBM25, Q2's BM25 text is the message
// and then the context's messages from the newest back, without their role
// labels ("User", "Persona" are no words of the conversation), so the clip to
// MaxQueryChars cuts the oldest context instead of the message; its terms
// are the message's, analyzed once for both queries, then the context's.
func (r *Retriever) queries(text string, recent []Message) queryTexts {
	msgTerms := r.analyzed(text, r.opts.MaxQueryChars)
	q := queryTexts{texts: []string{text}, bm25: []string{text}, terms: [][]string{msgTerms}, rerank: text}
	msgs := r.contextMessages(recent)
	if len(msgs) == 0 {
		return q
	}
	lines := make([]string, len(msgs))
	for i, m := range msgs {
		label := r.opts.UserLabel
		if m.Role == "assistant" {
			label = r.opts.AssistantLabel
		}
		lines[i] = label + ": " + m.Content
	}
	q2 := strings.Join(lines, "\n") + ContextSeparator + text
	q.texts = append(q.texts, q2)
	q.rerank = q2
	if !r.opts.MessageFirstBM25 {
		q.bm25 = append(q.bm25, q2)
		q.terms = append(q.terms, r.analyzed(q2, r.opts.MaxQueryChars))
		return q
	}
	rev := make([]string, 0, len(msgs)+1)
	rev = append(rev, text)
	terms := slices.Clip(msgTerms)
	room := r.opts.MaxQueryChars - utf8.RuneCountInString(pytext.Compact(text))
	for i := len(msgs) - 1; i >= 0; i-- {
		c := msgs[i].Content
		rev = append(rev, c)
		if room--; room <= 0 { // the space between two messages
			continue
		}
		if n := utf8.RuneCountInString(c); n > room {
			c = pytext.Head(c, room)
		}
		room -= utf8.RuneCountInString(c)
		for _, t := range r.contextTerms.terms(r.store.Analyzer(), c) {
			if !slices.Contains(terms, t) { // an analyzer's terms are distinct
				terms = append(terms, t)
			}
		}
	}
	q.bm25 = append(q.bm25, strings.Join(rev, "\n"))
	q.terms = append(q.terms, terms)
	return q
}

// termCache keeps the analyzed terms of recent context messages: a
// conversation's context moves by one message a turn, so each message is
// analyzed once instead of on every turn it stays in the context. It is safe
// for concurrent use; its zero value is empty.
type termCache struct {
	mu sync.Mutex
	m  map[string][]string
}

// maxCachedContexts bounds a termCache; when full it starts over.
const maxCachedContexts = 4096

// terms returns a's terms of the compacted text, from the cache when it holds
// them. The slice is shared: callers do not modify it.
func (c *termCache) terms(a tokenize.Analyzer, text string) []string {
	c.mu.Lock()
	t, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return t
	}
	t = slices.Clip(a.Terms(text))
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedContexts {
		c.m = make(map[string][]string)
	}
	c.m[text] = t
	c.mu.Unlock()
	return t
}

// armResults are the ranked hits of each search: vector and BM25 per query.
type armResults struct {
	knn, bm25 [][]episode.Hit
	window    [][]episode.Hit // vector and BM25 for Q1 inside the message's time window
}

// lists returns the ranked id lists in fusion order: vector Q1, vector Q2,
// BM25 Q1, BM25 Q2, then the time window's vector and BM25 lists.
func (a armResults) lists() [][]int64 {
	out := make([][]int64, 0, len(a.knn)+len(a.bm25)+len(a.window))
	for _, hs := range slices.Concat(a.knn, a.bm25, a.window) {
		out = append(out, ids(hs))
	}
	return out
}

// weights returns the fusion weight of each list of lists: knnWeight for the
// vector lists, 1 for BM25's.
func (a armResults) weights(knnWeight float64) []float64 {
	w := make([]float64, 0, len(a.knn)+len(a.bm25)+len(a.window))
	for range a.knn {
		w = append(w, knnWeight)
	}
	for range a.bm25 {
		w = append(w, 1)
	}
	if len(a.window) == 2 {
		w = append(w, knnWeight, 1)
	}
	return w
}

// cosine returns the cosine similarity of episode id to Q1 (the message
// alone) when the Q1 vector search found it, else 0.
func (a armResults) cosine(id int64) float64 {
	if len(a.knn) == 0 {
		return 0
	}
	for _, h := range a.knn[0] {
		if h.ID == id {
			return 1 - h.Score
		}
	}
	return 0
}

// search runs KNN and BM25 for every query concurrently. BM25 starts at once;
// KNN after the one batched embedding call. When the embedder fails and
// FallbackBM25 is set, the retrieval goes on with BM25 alone and the trace
// says why; it fails only when nothing can run.
func (r *Retriever) search(ctx context.Context, user string, q queryTexts, f episode.Filter, window *episode.Filter, tr *Trace) (armResults, error) {
	n := len(q.texts)
	var a armResults
	knnErrs, bm25Errs, winErrs := make([]error, n), make([]error, n), make([]error, 2)
	if window != nil {
		a.window = make([][]episode.Hit, 2)
	}
	tr.KNNHits, tr.BM25Hits, tr.BM25Match = make([]int, n), make([]int, n), make([]string, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	longest := func(d *time.Duration, since time.Time) {
		el := time.Since(since)
		mu.Lock()
		*d = max(*d, el)
		mu.Unlock()
	}
	bm25Ran := false
	var bm25 []func() // the BM25 queries, the longest first
	if r.opts.BM25K > 0 {
		a.bm25 = make([][]episode.Hit, n)
		t := time.Now()
		terms, err := r.queryTerms(ctx, user, q.terms)
		if err != nil {
			return a, err
		}
		tr.Prepare += time.Since(t)
		for i := n - 1; i >= 0; i-- {
			match := tokenize.MatchQuery(terms[i])
			tr.BM25Match[i] = match
			bm25Ran = bm25Ran || match != ""
			bm25 = append(bm25, func() {
				t := time.Now()
				a.bm25[i], bm25Errs[i] = r.store.BM25(ctx, user, terms[i], r.opts.BM25K, f)
				longest(&tr.BM25, t)
				tr.BM25Hits[i] = len(a.bm25[i])
			})
		}
		if window != nil {
			bm25 = append(bm25, func() {
				t := time.Now()
				a.window[1], winErrs[1] = r.store.BM25(ctx, user, terms[0], r.opts.BM25K, *window)
				longest(&tr.BM25, t)
			})
		}
	}
	// The BM25 queries are cgo calls, and a goroutine in a cgo call keeps
	// its processor (P) until the runtime's monitor takes it back: with a
	// goroutine for each search, the third of three on two processors
	// started only when the vector scan ended (0.49 ms into the searches at
	// 10,000 episodes). So up to GOMAXPROCS−1 helpers take the BM25 queries
	// from a shared list while this goroutine embeds and scans the vectors
	// (pure Go), then takes what is left (bench latency -n 10000: total p50
	// 1.70 → 1.53 ms).
	var next atomic.Int32
	takeBM25 := func() {
		for i := int(next.Add(1)) - 1; i < len(bm25); i = int(next.Add(1)) - 1 {
			bm25[i]()
		}
	}
	for range min(len(bm25), max(1, runtime.GOMAXPROCS(0)-1)) {
		wg.Go(takeBM25)
	}
	if r.opts.KNNK > 0 {
		vecs, err := r.embed(ctx, q.texts, tr)
		switch {
		case err != nil && r.opts.FallbackBM25 && bm25Ran && ctx.Err() == nil:
			tr.Degraded = err.Error()
		case err != nil:
			wg.Wait()
			return a, fmt.Errorf("retriever: embed queries: %w", err)
		default:
			t := time.Now()
			a.knn, knnErrs[0] = r.store.Nearest(ctx, user, vecs, r.opts.KNNK, f)
			for i := range a.knn {
				tr.KNNHits[i] = len(a.knn[i])
			}
			if window != nil {
				var w [][]episode.Hit
				w, winErrs[0] = r.store.Nearest(ctx, user, vecs[:1], r.opts.KNNK, *window)
				if len(w) == 1 {
					a.window[0] = w[0]
				}
			}
			longest(&tr.KNN, t)
		}
	}
	takeBM25()
	wg.Wait()
	if err := errors.Join(slices.Concat(knnErrs, bm25Errs, winErrs)...); err != nil {
		return a, fmt.Errorf("retriever: %w", err)
	}
	return a, nil
}

// embed embeds the query texts in one call, bounded by EmbedTimeout.
func (r *Retriever) embed(ctx context.Context, texts []string, tr *Trace) ([][]float32, error) {
	t := time.Now()
	defer func() { tr.Embed = time.Since(t) }()
	if r.opts.EmbedTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.opts.EmbedTimeout)
		defer cancel()
	}
	vecs, err := r.store.Embedder().Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedder returned %d vectors for %d queries", len(vecs), len(texts))
	}
	return vecs, err
}

// analyzed returns the terms of text compacted and clipped to chars
// characters.
func (r *Retriever) analyzed(text string, chars int) []string {
	return r.store.Analyzer().Terms(pytext.Head(pytext.Compact(text), chars))
}

// minCommonDocs is the fewest episodes that make a word common under
// MaxTermShare: in a young store a share is no statistic.
const minCommonDocs = 100

// A BM25 query's rows among the person's episodes are bounded by
// MaxMatchRows, and below that by a fortieth of the person's episodes, but
// never below minMatchRows: a term matching more than that share of a
// memory weighs little in its bm25. With jsquad-ja-dev's questions asked of a
// memory padded with real chat (cmd/bench eval -distractors), Recall@5 is the
// same with these bounds as with none at 11,000 episodes (250 rows) and
// 101,000 (2,000), and BM25 at 10,000 takes a third of the time
// (docs/performance.md). A twentieth (at least 500 rows) was no better.
const (
	minMatchRows   = 250
	matchRowsShare = 0.025
)

// queryTerms returns the BM25 terms of each query text. With MaxMatchRows
// set, a query keeps its rarest terms, in their order, before the
// MaxQueryTerms cut, while the rows they match among the person's episodes
// stay within MaxMatchRows (and a fortieth of those episodes, at least
// minMatchRows), their postings in the whole index within MaxPostings, and
// none is held by more than MaxTermShare of the store (the rarest term
// always stays). A term's rows among the
// person's episodes are estimated as its document frequency times the
// person's share of the index. FTS5 reads every posting of a term and scores
// every row an OR query matches; the common terms this drops (particles such
// as の or て, words the person says every day) match most rows while weighing
// least in bm25. That bounds BM25's work however many episodes the store and
// the person hold.
func (r *Retriever) queryTerms(ctx context.Context, user string, analyzed [][]string) ([][]string, error) {
	out := make([][]string, len(analyzed))
	if r.opts.MaxMatchRows <= 0 {
		for i, terms := range analyzed {
			out[i] = terms[:min(len(terms), r.opts.MaxQueryTerms)]
		}
		return out, nil
	}
	var all []string
	for i, terms := range analyzed {
		out[i] = slices.Clone(terms)
		all = append(all, terms...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	df, total, err := r.store.DocFreq(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("retriever: bm25 terms: %w", err)
	}
	mine, err := r.store.Count(ctx, user)
	if err != nil {
		return nil, fmt.Errorf("retriever: bm25 terms: %w", err)
	}
	share := 1.0
	if total > 0 && mine < total {
		share = float64(mine) / float64(total)
	}
	freq := func(t string) int {
		j, _ := slices.BinarySearch(all, t)
		return df[j]
	}
	budget := float64(r.opts.MaxMatchRows)
	if mine > 0 {
		budget = min(budget, max(minMatchRows, matchRowsShare*float64(mine)))
	}
	for i, terms := range out {
		byRarity := slices.Clone(terms)
		slices.SortFunc(byRarity, func(a, b string) int { return cmp.Or(freq(a)-freq(b), strings.Compare(a, b)) })
		byRarity = slices.Compact(byRarity)
		keep := make(map[string]bool, len(terms))
		rows, postings := 0.0, 0
		for j, t := range byRarity {
			f := freq(t)
			if j > 0 && (rows+float64(f)*share > budget ||
				r.opts.MaxPostings > 0 && postings+f > r.opts.MaxPostings ||
				r.opts.MaxTermShare > 0 && f > minCommonDocs && float64(f) > r.opts.MaxTermShare*float64(total)) {
				break
			}
			rows += float64(f) * share
			postings += f
			keep[t] = true
		}
		kept := terms[:0]
		for _, t := range terms {
			if keep[t] {
				kept = append(kept, t)
				delete(keep, t)
			}
		}
		out[i] = kept[:min(len(kept), r.opts.MaxQueryTerms)]
	}
	return out, nil
}

func ids(hits []episode.Hit) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// MessagesOf turns stored episodes into conversation messages: each user text
// as a user message and each reply as an assistant message, empty ones left
// out.
func MessagesOf(eps []episode.Episode) []Message {
	msgs := make([]Message, 0, 2*len(eps))
	for _, e := range eps {
		if e.UserText != "" {
			msgs = append(msgs, Message{Role: "user", Content: e.UserText})
		}
		if e.ReplyText != "" {
			msgs = append(msgs, Message{Role: "assistant", Content: e.ReplyText})
		}
	}
	return msgs
}

// contextMessages returns the last ContextMessages messages of the user and
// the assistant, each text compacted.
func (r *Retriever) contextMessages(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		// As in the reference, only empty messages are skipped: a
		// whitespace-only one still yields its label in Q2.
		if (m.Role == "user" || m.Role == "assistant") && m.Content != "" {
			out = append(out, Message{Role: m.Role, Content: pytext.Compact(m.Content)})
		}
	}
	return out[max(0, len(out)-r.opts.ContextMessages):]
}

// echoFilter recognises episodes already in the recent conversation: the
// stored episodes that served as context, and episodes whose user text or
// reply is one of the recent messages. The zero value recognises nothing.
type echoFilter struct {
	ids                   []int64
	userTexts, replyTexts []string
}

func newEchoFilter(ids []int64, recent []Message) echoFilter {
	f := echoFilter{ids: ids}
	for _, m := range recent {
		c := pytext.Compact(m.Content)
		switch {
		case c == "":
		case m.Role == "user":
			f.userTexts = append(f.userTexts, c)
		case m.Role == "assistant":
			f.replyTexts = append(f.replyTexts, c)
		}
	}
	return f
}

func (f echoFilter) is(e episode.Episode) bool {
	if slices.Contains(f.ids, e.ID) {
		return true
	}
	if len(f.userTexts) > 0 && e.UserText != "" && slices.Contains(f.userTexts, pytext.Compact(e.UserText)) {
		return true
	}
	return len(f.replyTexts) > 0 && e.ReplyText != "" && slices.Contains(f.replyTexts, pytext.Compact(e.ReplyText))
}
