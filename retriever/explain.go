package retriever

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/rrf"
)

// Searches is what a retrieval that asked for candidates saw before its
// ranking: each search's hits, the fusion of them, the candidates it dropped
// before the ranking, and the filter the searches applied. The inspector
// draws it; Result.Standing reads it.
type Searches struct {
	Arms []Arm
	// Fused are the fusion's candidates, best first: at most
	// MaxCandidates of every search's hits.
	Fused         []rrf.Scored
	MaxCandidates int
	// Echoes are the fused candidates dropped as already in the recent
	// conversation (Options.Context.ExcludeRecent).
	Echoes []int64
	// Gone are the fused candidates no longer stored, or another person's,
	// when they were read.
	Gone   []int64
	Filter episode.SearchFilter
}

// Arm is one search's ranked hits, as the fusion read them.
type Arm struct {
	Name   string // "vector q1", "bm25 q2", …
	Query  int    // which query (Trace.Queries) it searched for, 0 for Q1
	Vector bool
	// Match is a BM25 search's FTS5 expression (Trace.BM25Match).
	Match string
	// K is how many hits the search asked for: a BM25 search that found
	// fewer found every episode holding one of its terms.
	K    int
	Hits []episode.Match // best first; Score as the store gives it (a distance, or bm25: lower is better)
}

// searches records what the retrieval saw before its ranking, when asked
// for candidates.
func (rt *retrieval) searches(res *Result) {
	s := Searches{Fused: rt.fused, MaxCandidates: rt.opts.Rank.Fusion.MaxCandidates, Echoes: rt.echoes, Gone: rt.gone, Filter: rt.filter}
	rt.arms.each(func(name string, query int, l rerank.List, hits []episode.Match) {
		a := Arm{Name: name, Query: query, Vector: l.Vector, K: rt.opts.BM25.K, Hits: hits}
		if l.Vector {
			a.K = rt.opts.Vector.K
		} else if query < len(rt.tr.BM25Match) {
			a.Match = rt.tr.BM25Match[query]
		}
		s.Arms = append(s.Arms, a)
	})
	res.Searches = s
}

// Standing is where one episode stood in a retrieval, and what removed it
// (or that it was injected): Result.Standing from the retrieval alone,
// Retriever.WhyNot with what the store says of an episode no search found.
type Standing struct {
	ID int64
	// Ranks[i] is its rank in Searches.Arms[i], from 1; 0 where that search
	// did not find it.
	Ranks []int
	// Fused is its rank in Searches.Fused, Candidate in Result.Candidates,
	// from 1; 0 where it is not.
	Fused, Candidate int
	Echo             bool
	Verdict          rerank.Verdict // its verdict, when it was a candidate
	// Why says in words what happened to it.
	Why string
}

// Standing returns where episode id stood in the retrieval, which must have
// asked for candidates (Request.WithCandidates), and why it was or was not
// injected, as far as the retrieval tells: for an episode no search found,
// Why is "" (Retriever.WhyNot asks the store).
func (res Result) Standing(id int64) Standing {
	s := res.Searches
	st := Standing{ID: id, Ranks: make([]int, len(s.Arms))}
	found := false
	for i, a := range s.Arms {
		if j := slices.IndexFunc(a.Hits, func(m episode.Match) bool { return m.ID == id }); j >= 0 {
			st.Ranks[i], found = j+1, true
		}
	}
	st.Fused = 1 + slices.IndexFunc(s.Fused, func(f rrf.Scored) bool { return f.ID == id })
	st.Candidate = 1 + slices.IndexFunc(res.Candidates, func(h Hit) bool { return h.Episode.ID == id })
	st.Echo = slices.Contains(s.Echoes, id)
	switch {
	case st.Candidate > 0:
		st.Verdict = res.Candidates[st.Candidate-1].Verdict
		st.Why = st.Verdict.Why
	case st.Echo:
		st.Verdict = rerank.Verdict{Fate: rerank.FateEcho, Why: echoWhy}
		st.Why = echoWhy
	case slices.Contains(s.Gone, id):
		st.Why = "it was deleted, or is another person's, when the candidates were read"
	case st.Fused > 0:
		st.Why = "the fusion found it, but the ranking never scored it"
	case found:
		st.Why = fmt.Sprintf("the searches found it, but the fusion keeps the first %d candidates and its fused score ranked below them", s.MaxCandidates)
	}
	return st
}

const echoWhy = "it is already in the recent conversation, so it is not offered again"

// WhyNot says where episode id stood in res, a retrieval of req that asked
// for candidates (Request.WithCandidates), and what removed it (or that it
// was injected): Result.Standing, and for an episode no search found what
// the store says of it (another person's, left out by the filter, or ranked
// below each search's first K). An id the store does not hold is an error
// wrapping episode.ErrNotFound.
func (r *Retriever) WhyNot(ctx context.Context, req Request, res Result, id int64) (Standing, error) {
	st := res.Standing(id)
	if st.Why != "" {
		return st, nil
	}
	eps, err := r.store.GetMany(ctx, []int64{id})
	if err != nil {
		return st, fmt.Errorf("retriever: why not %d: %w", id, err)
	}
	switch {
	case len(eps) == 0:
		return st, fmt.Errorf("retriever: why not %d: %w", id, episode.ErrNotFound)
	case eps[0].User != req.User:
		st.Why = fmt.Sprintf("episode %d is not %s's: a retrieval searches one person's memory", id, req.User)
	case res.Trace.Skipped != "":
		st.Why = "nothing was searched: " + res.Trace.Skipped
	default:
		st.Why = cmp.Or(excludes(res.Searches.Filter, eps[0]), belowK(res.Searches.Arms))
	}
	return st, nil
}

// excludes says why the searches' filter leaves e out, or "".
func excludes(f episode.SearchFilter, e episode.Episode) string {
	switch {
	case e.Sensitivity > f.MaxSensitivity:
		return fmt.Sprintf("it is %s, and this retrieval searches episodes up to %s", e.Sensitivity, f.MaxSensitivity)
	case len(f.Kinds) > 0 && !slices.Contains(f.Kinds, e.Kind):
		return fmt.Sprintf("its kind, %s, is not searched (%s)", e.Kind, joinNames(f.Kinds))
	case len(f.States) > 0 && !slices.Contains(f.States, e.State):
		return fmt.Sprintf("its state, %s, is not searched (%s)", e.State, joinNames(f.States))
	case !f.Since.IsZero() && e.OccurredAt.Unix() < f.Since.Unix():
		return fmt.Sprintf("it happened on %s, before the searched days begin (%s)", day(e.OccurredAt), day(f.Since))
	case !f.Until.IsZero() && e.OccurredAt.Unix() >= f.Until.Unix():
		return fmt.Sprintf("it happened on %s, after the searched days end (%s)", day(e.OccurredAt), day(f.Until))
	}
	return ""
}

// belowK says why no search found an episode the filter admits.
func belowK(arms []Arm) string {
	if len(arms) == 0 {
		return "no search ran"
	}
	var parts []string
	for _, a := range arms {
		switch {
		case !a.Vector && a.Match == "":
			parts = append(parts, a.Name+" had no terms to search")
		case !a.Vector && len(a.Hits) < a.K:
			parts = append(parts, fmt.Sprintf("%s found %d, every episode holding its terms, and it holds none", a.Name, len(a.Hits)))
		default:
			parts = append(parts, fmt.Sprintf("%s ranked it below its first %d", a.Name, a.K))
		}
	}
	return "no search found it: " + strings.Join(parts, "; ")
}

func joinNames[T fmt.Stringer](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}

func day(t time.Time) string { return t.Format(time.DateOnly) }
