// Package retriever finds the past episodes worth reminding a chat model of,
// given a person's new message and the recent conversation: two fixed queries,
// vector KNN and BM25 for each, reciprocal rank fusion, a lexical and recency
// rerank, and a thresholded selection (../shared/design/reference-retrieval.md).
package retriever

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide/embed"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/rrf"
	"github.com/omoide/omoide/tokenize"
)

// Store is what a Retriever needs of an episode store; *episode.Store is one.
type Store interface {
	Embedder() embed.Embedder
	Analyzer() tokenize.Analyzer
	Recent(ctx context.Context, user string, n int) ([]episode.Episode, error)
	KNN(ctx context.Context, user string, vec []float32, k int, f episode.Filter) ([]episode.Hit, error)
	BM25(ctx context.Context, user, match string, k int, f episode.Filter) ([]episode.Hit, error)
	GetMany(ctx context.Context, ids []int64) ([]episode.Episode, error)
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
	RRF       float64 // the fused score
	RRFNorm   float64
	Lex       float64
	Rec       float64
}

// Trace records what each stage did, for tuning. Durations of the arms are
// wall-clock times of their concurrent queries.
type Trace struct {
	Skipped    string   // why retrieval did not run, if it did not
	Queries    []string // Q1 and, when there is context, Q2
	BM25Match  []string // the FTS5 expression per query ("" when it had no terms)
	KNNHits    []int    // hits per query
	BM25Hits   []int
	Candidates int // after fusion
	Fetched    int // candidates still in the store
	Picked     int
	Embed      time.Duration
	KNN        time.Duration
	BM25       time.Duration
	Fuse       time.Duration
	Fetch      time.Duration
	Rerank     time.Duration
	Total      time.Duration
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
	store Store
	opts  Options
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
	return &Retriever{store: store, opts: opts}, nil
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
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	recent := req.Recent
	if recent == nil && r.opts.RecentEpisodes > 0 {
		eps, err := r.store.Recent(ctx, req.User, r.opts.RecentEpisodes)
		if err != nil {
			return res, fmt.Errorf("retriever: %w", err)
		}
		recent = MessagesOf(eps)
	}
	queries := []string{text}
	if c := r.formatContext(recent); c != "" {
		if q2 := c + ContextSeparator + text; q2 != text {
			queries = append(queries, q2)
		}
	}
	tr.Queries = queries
	filter := r.filter(now)

	lists, err := r.search(ctx, req.User, queries, filter, tr)
	if err != nil {
		return res, err
	}

	t := time.Now()
	fused := rrf.Fuse(r.opts.RRFK, r.opts.MaxCandidates, lists...)
	tr.Fuse = time.Since(t)
	tr.Candidates = len(fused)
	if len(fused) == 0 {
		return res, nil
	}

	t = time.Now()
	ids := make([]int64, len(fused))
	for i, f := range fused {
		ids[i] = f.ID
	}
	eps, err := r.store.GetMany(ctx, ids)
	if err != nil {
		return res, fmt.Errorf("retriever: fetch candidates: %w", err)
	}
	tr.Fetch = time.Since(t)
	tr.Fetched = len(eps)

	t = time.Now()
	cands := make([]rerank.Candidate, 0, len(eps))
	byID := make(map[int64]episode.Episode, len(eps))
	j := 0
	for _, f := range fused {
		if j < len(eps) && eps[j].ID == f.ID {
			e := eps[j]
			j++
			byID[e.ID] = e
			cands = append(cands, rerank.Candidate{ID: e.ID, RRF: f.Score, UserText: e.UserText, ReplyText: e.ReplyText, OccurredAt: e.OccurredAt})
		}
	}
	ro := r.opts.Rerank
	scored := rerank.Score(ro.QueryGrams(queries[len(queries)-1]), cands, now, ro)
	picks := rerank.Select(scored, ro)
	tr.Rerank = time.Since(t)
	tr.Picked = len(picks)
	if req.WithCandidates {
		res.Candidates = make([]Hit, len(scored))
		for i, sc := range scored {
			res.Candidates[i] = Hit{Episode: byID[sc.ID], Score: sc.Final, RRF: sc.RRF, RRFNorm: sc.RRFNorm, Lex: sc.Lex, Rec: sc.Rec}
		}
	}

	res.Hits = make([]Hit, len(picks))
	for i, p := range picks {
		rel := memorypack.Medium
		if p.High {
			rel = memorypack.High
		}
		res.Hits[i] = Hit{Episode: byID[p.ID], Relevance: rel, Reason: p.Reason(), Score: p.Final,
			RRF: p.RRF, RRFNorm: p.RRFNorm, Lex: p.Lex, Rec: p.Rec}
	}
	return res, nil
}

// filter is the search filter at time now.
func (r *Retriever) filter(now time.Time) episode.Filter {
	f := episode.Filter{Kinds: r.opts.Kinds, States: r.opts.States, MaxSensitivity: r.opts.MaxSensitivity}
	if r.opts.MaxAgeDays > 0 {
		// The reference compares UTC day numbers: occurred day >= today - MaxAgeDays.
		day := floorDiv(now.Unix(), 86400) - int64(r.opts.MaxAgeDays)
		f.Since = time.Unix(day*86400, 0).UTC()
	}
	return f
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// search runs KNN and BM25 for every query concurrently and returns the ranked
// id lists in fusion order: vector Q1, vector Q2, BM25 Q1, BM25 Q2.
func (r *Retriever) search(ctx context.Context, user string, queries []string, f episode.Filter, tr *Trace) ([][]int64, error) {
	n := len(queries)
	lists := make([][]int64, 2*n)
	errs := make([]error, 2*n)
	tr.KNNHits, tr.BM25Hits, tr.BM25Match = make([]int, n), make([]int, n), make([]string, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	longest := func(d *time.Duration, since time.Time) {
		el := time.Since(since)
		mu.Lock()
		*d = max(*d, el)
		mu.Unlock()
	}
	if r.opts.BM25K > 0 {
		for i, q := range queries {
			match := tokenize.MatchQuery(r.bm25Terms(q))
			tr.BM25Match[i] = match
			wg.Go(func() {
				t := time.Now()
				hits, err := r.store.BM25(ctx, user, match, r.opts.BM25K, f)
				longest(&tr.BM25, t)
				lists[n+i], errs[n+i] = ids(hits), err
				tr.BM25Hits[i] = len(hits)
			})
		}
	}
	if r.opts.KNNK > 0 {
		t := time.Now()
		vecs, err := r.store.Embedder().Embed(ctx, queries)
		tr.Embed = time.Since(t)
		if err == nil && len(vecs) != n {
			err = fmt.Errorf("embedder returned %d vectors for %d queries", len(vecs), n)
		}
		if err != nil {
			wg.Wait()
			return nil, fmt.Errorf("retriever: embed queries: %w", err)
		}
		for i, v := range vecs {
			wg.Go(func() {
				t := time.Now()
				hits, err := r.store.KNN(ctx, user, v, r.opts.KNNK, f)
				longest(&tr.KNN, t)
				lists[i], errs[i] = ids(hits), err
				tr.KNNHits[i] = len(hits)
			})
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("retriever: %w", err)
	}
	return lists, nil
}

// bm25Terms returns the FTS terms of a query: compacted, clipped to
// MaxQueryChars characters, analyzed, at most MaxQueryTerms terms.
func (r *Retriever) bm25Terms(q string) []string {
	terms := r.store.Analyzer().Terms(pytext.Head(pytext.Compact(q), r.opts.MaxQueryChars))
	if len(terms) > r.opts.MaxQueryTerms {
		terms = terms[:r.opts.MaxQueryTerms]
	}
	return terms
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

// formatContext renders the last ContextMessages messages, one per line, as
// "User: text" or "Persona: text" with each text compacted.
func (r *Retriever) formatContext(msgs []Message) string {
	lines := make([]string, 0, len(msgs))
	for _, m := range msgs {
		var label string
		switch m.Role {
		case "user":
			label = r.opts.UserLabel
		case "assistant":
			label = r.opts.AssistantLabel
		default:
			continue
		}
		if c := pytext.Compact(m.Content); c != "" {
			lines = append(lines, label+": "+c)
		}
	}
	if len(lines) > r.opts.ContextMessages {
		lines = lines[len(lines)-r.opts.ContextMessages:]
	}
	return strings.Join(lines, "\n")
}
