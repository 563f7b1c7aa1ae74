package retriever

import (
	"context"
	"fmt"
	"math/bits"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/lang"
	"github.com/omoide/omoide/ngram"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/smalltalk"
	"github.com/omoide/omoide/tokenize"
)

// score turns the fetched candidates into the ranking's (the person's own,
// not already in the recent conversation), scores them (rerank.Score) and
// raises their neighbours, reading those no search found.
func (rt *retrieval) score(ctx context.Context) error {
	rt.rankStart = time.Now()
	if rt.opts.Context.ExcludeRecent {
		rt.echo = newEchoFilter(rt.recentIDs, rt.recent)
	}
	cands := make([]rerank.Candidate, 0, len(rt.eps))
	rt.byID = make(map[int64]episode.Episode, len(rt.eps))
	j := 0
	for _, f := range rt.fused {
		if j >= len(rt.eps) || rt.eps[j].ID != f.ID {
			rt.dropped(&rt.gone, f.ID) // deleted since the search
			continue
		}
		e, g, m := rt.eps[j], rt.grams[j], rt.matches[j]
		j++
		if e.User != rt.user {
			rt.dropped(&rt.gone, f.ID) // never another person's episode, whatever an index said
			continue
		}
		if rt.echo.is(e) {
			rt.tr.Echoes++
			rt.dropped(&rt.echoes, f.ID)
			continue
		}
		rt.byID[e.ID] = e
		cands = append(cands, rt.candidate(e, g, f.Score, m))
	}
	ro := rt.opts.Rank
	rt.query = rerank.Query{Grams: ro.Ngrams.Query(rt.q.rerank)}
	if ro.MeasuresTerms() || rt.withCandidates {
		rt.query.Message = ro.Ngrams.Query(rt.text)
	}
	rt.scored = rerank.Score(rt.query, cands, rt.now, ro)
	if err := rt.neighbors(ctx); err != nil {
		return err
	}
	if rt.wants("alone") {
		rt.standing()
	}
	return nil
}

// standing sets each candidate's Alone, Newer, Names and Rarity: how it stands among the
// candidates by the message's content terms it holds (Candidate.Held).
func (rt *retrieval) standing() {
	w := rt.cover
	if w == nil || w.content == 0 {
		return
	}
	var holders [64]int
	top := 0.0
	for j := range min(64, len(w.terms)) {
		if w.content&(1<<j) != 0 {
			top = max(top, w.weights[j])
		}
	}
	for _, s := range rt.scored {
		for h := s.Held; h != 0; h &= h - 1 {
			holders[bits.TrailingZeros64(h)]++
		}
	}
	weigh := func(h uint64) float64 {
		sum := 0.0
		for ; h != 0; h &= h - 1 {
			sum += w.weights[bits.TrailingZeros64(h)]
		}
		return sum
	}
	for i := range rt.scored {
		s := &rt.scored[i]
		if s.Held == 0 || top == 0 {
			continue
		}
		for h := s.Held; h != 0; h &= h - 1 {
			j := bits.TrailingZeros64(h)
			if holders[j] == 1 {
				s.Alone = max(s.Alone, w.weights[j]/top)
			}
			if w.most > 0 {
				s.Rarity = max(s.Rarity, min(1, w.weights[j]/w.most))
			}
		}
		if w.names != 0 {
			s.Names = weigh(s.Held&w.names) / weigh(w.names)
		}
		mine := weigh(s.Held)
		for _, o := range rt.scored {
			if o.OccurredAt.After(s.OccurredAt) && o.Held&s.Held != 0 {
				s.Newer = max(s.Newer, weigh(o.Held&s.Held)/mine)
			}
		}
	}
}

// dropped records a fused candidate dropped before the ranking in list,
// when the request asked for candidates (Searches).
func (rt *retrieval) dropped(list *[]int64, id int64) {
	if rt.withCandidates {
		*list = append(*list, id)
	}
}

// candidate is the ranking's candidate for episode e: its n-grams, fused score
// and term match, whether it lies in the message's time window, and its cosine
// to the message.
func (rt *retrieval) candidate(e episode.Episode, g ngram.Set, fused float64, m termMatch) rerank.Candidate {
	inWindow := rt.window != nil && !e.OccurredAt.Before(rt.window.Since) && e.OccurredAt.Before(rt.window.Until)
	return rerank.Candidate{ID: e.ID, UserText: e.UserText, ReplyText: e.ReplyText, OccurredAt: e.OccurredAt, Grams: g,
		Parts: rerank.Parts{RRF: fused, Coverage: m.coverage, Proximity: m.proximity, Lacking: m.lacking, InWindow: inWindow, Cosine: rt.arms.cosine(e.ID),
			Meaning: m.meaning, Bridge: m.bridge, UserCoverage: m.userCoverage, ContextCoverage: m.contextCoverage},
		Held: m.held}
}

// neighbors raises the candidates next to the first ones in the person's
// timeline and adds those of the first that no search found, when they pass
// the same filters (rerank.Neighbors).
func (rt *retrieval) neighbors(ctx context.Context) error {
	ro := rt.opts.Rank
	nb := ro.Neighbors
	if nb.Share <= 0 || len(rt.scored) == 0 {
		return nil
	}
	anchors := make([]int64, nb.Anchors(rt.scored, ro.Select.MaxResults))
	for i := range anchors {
		anchors[i] = rt.scored[i].ID
	}
	adj, err := rt.store.Adjacent(ctx, rt.user, anchors)
	if err != nil {
		return fmt.Errorf("retriever: neighbours: %w", err)
	}
	want := nb.Raise(rt.scored, adj)
	var fetched []rerank.Scored
	if len(want) > 0 {
		ids := make([]int64, len(want))
		for i, w := range want {
			ids[i] = w.ID
		}
		eps, grams, matches, err := rt.read(ctx, ids, rt.measures())
		if err != nil {
			return fmt.Errorf("retriever: neighbours: %w", err)
		}
		var add []rerank.Candidate
		for i, e := range eps {
			if e.User != rt.user || !rt.filter.Admits(e) || rt.echo.is(e) {
				continue
			}
			rt.byID[e.ID] = e
			c := rt.candidate(e, grams[i], 0, matches[i])
			c.Added = true
			add = append(add, c)
		}
		fetched = rerank.Score(rt.query, add, rt.now, ro)
	}
	rt.scored = nb.Add(rt.scored, want, fetched)
	for _, s := range rt.scored {
		if s.Raised {
			rt.tr.Neighbors++
		}
		if s.Added {
			rt.tr.NeighborsAdded++
		}
	}
	return nil
}

// gate looks up the message's names the person's memory never held, when
// the gate checks names, the relevance model weighs them or the candidates'
// features are asked for (Result.Signals), and decides (rerank.Options.Decide:
// the gate, then the relevance model's probabilities when it decides, else
// the rules).
func (rt *retrieval) gate(ctx context.Context) error {
	ro := rt.opts.Rank
	var unknown []string
	if (ro.Gate.UnknownNames || ro.Inject.On() || rt.withCandidates) && len(rt.scored) > 0 {
		var err error
		if unknown, err = rt.unknownNames(ctx); err != nil {
			return err
		}
		rt.tr.UnknownNames = unknown
		rt.unknown = unknown
	}
	rt.tr.Decision = rt.decision
	var probs func() []float64
	if ro.Inject.On() {
		probs = func() []float64 {
			rt.probs = ro.Inject.Probabilities(rt.scored, rt.signals())
			if len(rt.probs) > 0 {
				rt.tr.Probability = ro.Inject.Any(rt.probs)
			}
			return rt.probs
		}
	}
	var why string
	if rt.withCandidates {
		rt.picks, why, rt.verdicts = ro.Explain(rt.scored, unknown, probs)
	} else {
		rt.picks, why = ro.Decide(rt.scored, unknown, probs)
	}
	if why != "" {
		rt.tr.Declined = why
		rt.tr.Gated = len(rt.scored)
	}
	return nil
}

// unknownNames returns the names in the message (when the store's analyzer
// finds names) that none of the person's episodes holds.
func (rt *retrieval) unknownNames(ctx context.Context) ([]string, error) {
	nf, ok := rt.analyzer.(tokenize.NameFinder)
	if !ok {
		return nil, nil
	}
	names := nf.Names(rt.text)
	if len(names) == 0 {
		return nil, nil
	}
	held, err := rt.store.Holds(ctx, rt.user, names)
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

// pick makes the hits of the picks gate decided, and reports the candidates
// when asked for.
func (rt *retrieval) pick(res *Result) {
	if rt.withCandidates {
		res.Candidates = make([]Hit, len(rt.scored))
		for i, s := range rt.scored {
			res.Candidates[i] = rt.hit(s)
		}
		for i, p := range rt.probs {
			res.Candidates[i].Probability = p
		}
		for i, v := range rt.verdicts {
			res.Candidates[i].Verdict = v
		}
		rt.searches(res)
		res.Ranked = rt.scored
		res.Signals = rt.signals()
	}
	picks := rt.picks
	rt.tr.Rerank = time.Since(rt.rankStart)
	rt.tr.Picked = len(picks)
	res.Hits = make([]Hit, len(picks))
	for i, p := range picks {
		h := rt.hit(p.Scored)
		h.Relevance, h.Reason, h.Probability = p.Relevance, p.Reason(), p.Probability
		res.Hits[i] = h
	}
}

// signals are what the retrieval measured of the message, for the features
// of its candidates.
func (rt *retrieval) signals() rerank.Signals {
	// score sets query.Message whenever candidates are asked for
	s := rerank.Signals{Strength: rt.opts.Rank.Ngrams.Strength(rt.query.Message), UnknownNames: len(rt.unknown)}
	if rt.cover != nil {
		s.Terms = rt.cover.messageTerms()
	}
	s.Kana, s.Han, s.Hangul, s.Latin = lang.Shares(rt.text)
	_, s.Cue = smalltalk.CueWord(rt.text)
	return s
}

// hit is the Hit of a scored candidate.
func (rt *retrieval) hit(s rerank.Scored) Hit {
	return Hit{Episode: rt.byID[s.ID], Score: s.Final, Parts: s.Parts}
}
