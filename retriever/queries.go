package retriever

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/smalltalk"
	"github.com/omoide/omoide/timeexpr"
	"github.com/omoide/omoide/tokenize"
)

// prepare reads the message, its time window and the recent conversation and
// builds the queries and their BM25 terms. It returns nil, with res complete,
// when nothing is to be searched: an empty message, small talk, or a message
// that is only a time reference (answered with the window's episodes).
func (r *Retriever) prepare(ctx context.Context, req Request, res *Result) (*retrieval, error) {
	start := time.Now()
	tr := &res.Trace
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("retriever: %w", err)
	}
	req = clipRequest(req, tr)
	rt := &retrieval{Retriever: r, opts: r.opts, user: req.User, text: strings.TrimFunc(req.Text, pytext.IsSpace), now: req.Now,
		withCandidates: req.WithCandidates, tr: tr}
	if req.Filter != nil {
		rt.opts.Filter = *req.Filter
	}
	if req.InjectThreshold != nil {
		rt.opts.Rank.Inject.Threshold = *req.InjectThreshold
	}
	rt.analyzer, rt.lang = r.store.Analyzer(), req.Lang
	if lr, ok := rt.analyzer.(tokenize.LanguageReader); ok {
		if req.Lang != lang.Other {
			rt.analyzer = lr.ForLanguage(req.Lang)
		} else {
			rt.lang = lr.Language() // the store's: a cjk2+ja store reads Han alone as Japanese
		}
	}
	if rt.text == "" {
		tr.Skipped = "empty message"
		return nil, nil
	}
	if r.opts.SkipSmallTalk && !smalltalk.NeedsMemoryLang(rt.text, rt.lang) {
		tr.Skipped = "small talk"
		return nil, nil
	}
	if rt.now.IsZero() {
		rt.now = time.Now()
	}
	loc := req.Location
	if loc == nil {
		loc = r.opts.location()
	}
	rt.filter = filterAt(rt.opts.Filter, rt.now, loc)
	if r.opts.TimeAware {
		if w, ok := timeexpr.ParseLang(rt.text, rt.now, loc, rt.lang); ok {
			tr.Window = fmt.Sprintf("%s [%s, %s)", w.Expr, w.From.Format(time.RFC3339), w.To.Format(time.RFC3339))
			wf := rt.filter
			wf.Since, wf.Until = w.From, w.To
			if rt.filter.Since.After(w.From) {
				wf.Since = rt.filter.Since
			}
			if !rt.filter.Until.IsZero() && rt.filter.Until.Before(w.To) {
				wf.Until = rt.filter.Until
			}
			rt.window = &wf
			rt.timeTerms = rt.analyzer.Terms(w.Expr)
			if w.Only {
				return nil, rt.windowOnly(ctx, w.Expr, res)
			}
		}
	}
	rt.recent = req.Recent
	if rt.recent == nil && r.opts.Context.Episodes > 0 {
		// Exchanges only: a fact or a summary is no turn of the conversation.
		cf := rt.opts.Filter.episodeFilter()
		cf.Kinds = []episode.Kind{episode.KindEpisode}
		if gap := r.opts.Context.SessionGap; gap > 0 {
			cf.Since = rt.now.Add(-gap)
		}
		eps, err := r.store.Conversation(ctx, req.User, r.opts.Context.Episodes, cf)
		if err != nil {
			return nil, fmt.Errorf("retriever: %w", err)
		}
		rt.recent = MessagesOf(eps)
		for _, e := range eps {
			rt.recentIDs = append(rt.recentIDs, e.ID)
		}
	}
	rt.q = r.queries(rt.analyzer, rt.text, rt.recent)
	rt.q.withoutTimeTerms(rt.timeTerms)
	tr.Queries = rt.q.texts
	if r.opts.BM25.K > 0 {
		var err error
		kana, _, _, _ := lang.Shares(rt.text)
		if rt.terms, err = r.queryTerms(ctx, req.User, rt.q.terms, kana > 0); err != nil {
			return nil, err
		}
		tr.BM25Match = make([]string, len(rt.terms))
		for i, t := range rt.terms {
			tr.BM25Match[i] = tokenize.MatchQuery(t)
			rt.bm25Any = rt.bm25Any || tr.BM25Match[i] != ""
		}
	}
	tr.Prepare = time.Since(start)
	return rt, nil
}

// clipRequest cuts the message and each recent turn to MaxMessageBytes,
// noting in tr what it cut.
func clipRequest(req Request, tr *Trace) Request {
	var cut []string
	var clipped, cloned bool
	if req.Text, clipped = clipMessage(req.Text); clipped {
		cut = append(cut, "message")
	}
	for i, m := range req.Recent {
		if c, ok := clipMessage(m.Content); ok {
			if !cloned {
				req.Recent, cloned = slices.Clone(req.Recent), true // the caller's stays whole
			}
			req.Recent[i].Content = c
			cut = append(cut, fmt.Sprintf("recent[%d]", i))
		}
	}
	if cut != nil {
		tr.Clipped = fmt.Sprintf("%s to %d bytes", strings.Join(cut, ", "), MaxMessageBytes)
	}
	return req
}

// windowOnly answers a message that is only a time reference ("先週何話し
// たっけ") with the newest episodes inside the window, up to MaxResults.
func (rt *retrieval) windowOnly(ctx context.Context, expr string, res *Result) error {
	t := time.Now()
	eps, err := rt.store.Between(ctx, rt.user, rt.opts.Rank.Select.MaxResults, *rt.window)
	if err != nil {
		return fmt.Errorf("retriever: %w", err)
	}
	res.Trace.Fetch = time.Since(t)
	res.Trace.Fetched, res.Trace.Picked = len(eps), len(eps)
	for i, e := range eps {
		rel := rerank.Medium
		if i == 0 {
			rel = rerank.High
		}
		res.Hits = append(res.Hits, Hit{Episode: e, Relevance: rel, Reason: "time window: " + expr})
	}
	return nil
}

// filterAt is the search filter of o at time now: the day window of
// MaxAgeDays and UntilToday in time zone loc (UTC day numbers in the
// reference).
func filterAt(o Filter, now time.Time, loc *time.Location) episode.SearchFilter {
	f := o.episodeFilter()
	y, m, d := now.In(loc).Date()
	if o.MaxAgeDays > 0 {
		f.Since = time.Date(y, m, d-o.MaxAgeDays, 0, 0, 0, 0, loc)
	}
	if o.UntilToday {
		f.Until = time.Date(y, m, d+1, 0, 0, 0, 0, loc)
	}
	return f
}

// queryTexts are a retrieval's query texts.
type queryTexts struct {
	texts []string // Q1 and, with context, Q2: what is embedded
	bm25  []string // the text each query's BM25 terms come from
	// terms are each query's BM25 terms, analyzed from its bm25 text clipped
	// to MaxChars, before the MaxTerms cut and the bounds of queryTerms.
	// terms[0] are the message's.
	terms  [][]string
	rerank string // the text the reranker compares episodes with
}

// queries builds Q1 = the message and, when there is context, Q2 = context +
// separator + message. With BM25.MessageFirst, Q2's BM25 text is the message
// and then the context's messages from the newest back, without their role
// labels ("User", "Persona" are no words of the conversation), so the clip to
// MaxChars cuts the oldest context instead of the message; its terms are the
// message's, analyzed once for both queries by a (the store's analyzer, or
// the one the request's Lang chose), then the context's.
func (r *Retriever) queries(a tokenize.Analyzer, text string, recent []Message) queryTexts {
	maxChars := r.opts.BM25.MaxChars
	msgTerms := r.analyzed(a, text)
	q := queryTexts{texts: []string{text}, bm25: []string{text}, terms: [][]string{msgTerms}, rerank: text}
	msgs := r.contextLines(recent)
	if len(msgs) == 0 {
		return q
	}
	lines := make([]string, len(msgs))
	for i, m := range msgs {
		lines[i] = m.label + m.content
	}
	q2 := strings.Join(lines, "\n") + ContextSeparator + text
	q.texts = append(q.texts, q2)
	q.rerank = q2
	if !r.opts.BM25.MessageFirst {
		q.bm25 = append(q.bm25, q2)
		q.terms = append(q.terms, r.analyzed(a, q2))
		return q
	}
	rev := make([]string, 0, len(msgs)+1)
	rev = append(rev, text)
	terms := slices.Clip(msgTerms)
	room := maxChars - utf8.RuneCountInString(pytext.Compact(text))
	for i := len(msgs) - 1; i >= 0; i-- {
		c := msgs[i].content
		rev = append(rev, c)
		if maxChars > 0 {
			if room--; room <= 0 { // the space between two messages
				continue
			}
			if n := utf8.RuneCountInString(c); n > room {
				c = pytext.Head(c, room)
			}
			room -= utf8.RuneCountInString(c)
		}
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

// withoutTimeTerms leaves the terms of the message's time expression out of
// its terms and Q2's, unless nothing of the message would remain: the
// window already says when (今日寒いね: 今日 is no topic), and searched as
// a word it finds every memory that says 今日.
func (q *queryTexts) withoutTimeTerms(time []string) {
	if len(time) == 0 {
		return
	}
	rest := slices.DeleteFunc(slices.Clone(q.terms[0]), func(t string) bool { return slices.Contains(time, t) })
	if len(rest) == 0 || len(rest) == len(q.terms[0]) {
		return
	}
	q.terms[0] = rest
	for i := 1; i < len(q.terms); i++ {
		q.terms[i] = slices.DeleteFunc(slices.Clone(q.terms[i]), func(t string) bool { return slices.Contains(time, t) })
	}
}

// analyzed returns the terms of text compacted and clipped to BM25.MaxChars
// characters.
func (r *Retriever) analyzed(a tokenize.Analyzer, text string) []string {
	s := pytext.Compact(text)
	if r.opts.BM25.MaxChars > 0 {
		s = pytext.Head(s, r.opts.BM25.MaxChars)
	}
	return a.Terms(s)
}

// DesktopWatchSource is the Source of an episode that records the companion
// looking at the person's desktop (the reference's desktop_watch): in the
// recent conversation it is one observation of the assistant's, not words of
// the person.
const DesktopWatchSource = "desktop_watch"

// MessagesOf turns stored episodes into conversation messages, as the
// reference does: each user text as a user message and each reply as an
// assistant message, trimmed, empty ones left out; a desktop_watch episode is
// one assistant message, an observation note with its reply as a monologue.
func MessagesOf(eps []episode.Episode) []Message {
	msgs := make([]Message, 0, 2*len(eps))
	for _, e := range eps {
		user, reply := strings.TrimFunc(e.UserText, pytext.IsSpace), strings.TrimFunc(e.ReplyText, pytext.IsSpace)
		if strings.TrimFunc(e.Source, pytext.IsSpace) == DesktopWatchSource {
			note := "（観測メモ）デスクトップを確認"
			if reply != "" {
				note += "\n独り言: " + reply
			}
			msgs = append(msgs, Message{Role: "assistant", Content: note})
			continue
		}
		if user != "" {
			msgs = append(msgs, Message{Role: "user", Content: user})
		}
		if reply != "" {
			msgs = append(msgs, Message{Role: "assistant", Content: reply})
		}
	}
	return msgs
}

// speaker returns "user" or "assistant" for a message's role ("persona" is
// the assistant), or "" for another role.
func speaker(role string) string {
	switch r := pytext.Compact(role); r {
	case "user", "assistant":
		return r
	case "persona":
		return "assistant"
	}
	return ""
}

// contextLine is one message of the recent conversation as Q2 holds it.
type contextLine struct {
	label   string // "User: ", or "" without a label
	content string // compacted
}

// contextLines returns the last Context.Messages messages of the recent
// conversation as Q2's lines, as the reference formats them: the window is
// taken first, then the messages whose compacted text is empty are dropped
// (six messages, one of them " ", give five lines); the user's are labelled
// UserLabel, the assistant's (and "persona"'s) AssistantLabel, another role's
// (with Context.OtherRoles; else it is dropped) by its own name, "Message"
// when it has none.
func (r *Retriever) contextLines(msgs []Message) []contextLine {
	o := r.opts.Context
	window := msgs[max(0, len(msgs)-o.Messages):]
	out := make([]contextLine, 0, len(window))
	for _, m := range window {
		content := pytext.Compact(m.Content)
		if content == "" {
			continue
		}
		var label string
		switch speaker(m.Role) {
		case "user":
			label = o.UserLabel
		case "assistant":
			label = o.AssistantLabel
		default:
			if !o.OtherRoles {
				continue
			}
			if label = pytext.Compact(m.Role); label == "" {
				label = "Message"
			}
		}
		if label != "" {
			label += ": "
		}
		out = append(out, contextLine{label: label, content: content})
	}
	return out
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

// minCommonDocs is the fewest episodes that make a word common under
// BM25.MaxTermShare: in a young store a share is no statistic.
const minCommonDocs = 100

// A BM25 query's rows among the person's episodes are bounded by MaxRows,
// and below that by a fortieth of the person's episodes, but never below
// minMatchRows: a term matching more than that share of a memory weighs
// little in its bm25 (docs/performance.md, "BM25's work").
const (
	minMatchRows   = 250
	matchRowsShare = 0.025
)

// queryTerms returns the BM25 terms of each query, bounded as BM25.MaxRows,
// MaxPostings and MaxTermShare say, then cut to MaxTerms. A term's rows among
// the person's episodes are estimated as its document frequency times the
// person's share of the index. FTS5 reads every posting of a term and scores
// every row an OR query matches; the common terms this drops (particles such
// as の or て, words the person says every day) match most rows while weighing
// least in bm25. That bounds BM25's work however many episodes the store and
// the person hold. A term's forms and, for a message with kana (kana), its
// equivalents join it (Options.Forms, Options.Equivalents).
func (r *Retriever) queryTerms(ctx context.Context, user string, analyzed [][]string, kana bool) ([][]string, error) {
	o := r.opts.BM25
	out := make([][]string, len(analyzed))
	cut := func(terms []string) []string {
		if o.MaxTerms > 0 {
			return terms[:min(len(terms), o.MaxTerms)]
		}
		return terms
	}
	forms := func(t string) []string {
		var f []string
		if r.lexicon != nil && r.opts.Forms {
			f = r.lexicon.Forms(t)
		}
		if kana && r.bridges != nil && r.opts.Equivalents {
			f = append(slices.Clip(f), r.bridges.Synonyms(t)...)
		}
		return f
	}
	if o.MaxRows <= 0 && o.MaxPostings <= 0 && o.MaxTermShare <= 0 {
		for i, terms := range analyzed {
			out[i] = cut(terms)
			for _, t := range out[i] {
				if f := forms(t); len(f) > 0 {
					out[i] = append(slices.Clip(out[i]), f...) // never into analyzed's array
				}
			}
		}
		return out, nil
	}
	var all []string
	for i, terms := range analyzed {
		out[i] = slices.Clone(terms)
		all = append(all, terms...)
		for _, t := range terms {
			all = append(all, forms(t)...)
		}
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
	budget := float64(o.MaxRows)
	if o.MaxRows > 0 && mine > 0 {
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
			if j > 0 && (o.MaxRows > 0 && rows+float64(f)*share > budget ||
				o.MaxPostings > 0 && postings+f > o.MaxPostings ||
				o.MaxTermShare > 0 && f > minCommonDocs && float64(f) > o.MaxTermShare*float64(total)) {
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
		out[i] = cut(kept)
		// A kept term's forms (Options.Forms: 눈 for 눈이, 눈은) and
		// equivalents join it when some episode holds them, they are not
		// common and the query's rows and postings stay within their bounds.
		for _, t := range out[i] {
			for _, f := range forms(t) {
				n := freq(f)
				if n == 0 || o.MaxTermShare > 0 && n > minCommonDocs && float64(n) > o.MaxTermShare*float64(total) ||
					o.MaxRows > 0 && rows+float64(n)*share > budget || o.MaxPostings > 0 && postings+n > o.MaxPostings {
					continue
				}
				rows += float64(n) * share
				postings += n
				out[i] = append(out[i], f)
			}
		}
	}
	return out, nil
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
		case speaker(m.Role) == "user":
			f.userTexts = append(f.userTexts, c)
		case speaker(m.Role) == "assistant":
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
