// Package rerank orders fused candidates by a blend of their fused rank, their
// character-trigram overlap with the query and their recency, then selects the
// evidence to return, as the reference design's heuristic reranker does. It
// can also weigh in each candidate's term coverage of the message, which the
// caller computes (the reference gives it no weight).
package rerank

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/ngram"
)

// The reference design's constants.
const (
	DefaultWeightRRF      = 0.55
	DefaultWeightLex      = 0.35
	DefaultWeightRecency  = 0.10
	DefaultRecencyDays    = 45   // e-folding time of the recency score, in days
	DefaultStrengthNgrams = 30   // a query with this many unique n-grams has full lexical strength
	DefaultQueryChars     = 1200 // the query's LAST characters are compared
	DefaultEpisodeChars   = 1200 // an episode's FIRST characters are compared
	DefaultNgramSize      = 3
	DefaultMaxResults     = 5
	DefaultMedium         = 0.28 // a pick below this is skipped
	DefaultHigh           = 0.35 // the first pick must reach this, or nothing is returned
	DefaultDedupeDice     = 0.90 // a candidate this similar to an earlier pick is skipped
)

// Options are the reranker's weights and thresholds. The zero value is not
// useful; start from DefaultOptions.
type Options struct {
	WeightRRF, WeightLex, WeightRecency float64
	// WeightCoverage weighs Candidate.Coverage; 0 (the reference) leaves
	// it out of Final.
	WeightCoverage float64
	// WeightProximity weighs Candidate.Proximity; 0 (the reference) leaves
	// it out of Final.
	WeightProximity          float64
	RecencyDays              float64
	StrengthNgrams           int
	QueryChars, EpisodeChars int
	NgramSize                int
	MaxResults               int
	Medium, High             float64
	DedupeDice               float64
}

// DefaultOptions returns the reference design's reranker.
func DefaultOptions() Options {
	return Options{
		WeightRRF:      DefaultWeightRRF,
		WeightLex:      DefaultWeightLex,
		WeightRecency:  DefaultWeightRecency,
		RecencyDays:    DefaultRecencyDays,
		StrengthNgrams: DefaultStrengthNgrams,
		QueryChars:     DefaultQueryChars,
		EpisodeChars:   DefaultEpisodeChars,
		NgramSize:      DefaultNgramSize,
		MaxResults:     DefaultMaxResults,
		Medium:         DefaultMedium,
		High:           DefaultHigh,
		DedupeDice:     DefaultDedupeDice,
	}
}

// Candidate is one fused candidate with the texts the reranker compares.
type Candidate struct {
	ID         int64
	RRF        float64 // fused score
	UserText   string
	ReplyText  string
	OccurredAt time.Time // the zero time (or before 1970) has no recency
	Boost      float64   // added to Final as it is (0 in the reference)
	// Coverage is the share of the message's terms the episode holds, in
	// [0, 1], as the caller measures it (the retriever: by IDF weight);
	// Final adds WeightCoverage·Coverage.
	Coverage float64
	// Proximity is the share of the message's adjacent term pairs the
	// episode holds close together and in order, in [0, 1]; Final adds
	// WeightProximity·Proximity.
	Proximity float64
	// Grams are the episode's n-grams (EpisodeGrams) when the caller has
	// them already; nil means Score computes them.
	Grams ngram.Set
}

// Scored is a candidate with its score parts.
type Scored struct {
	Candidate
	Final   float64 // WeightRRF·RRFNorm + WeightLex·Lex + WeightRecency·Rec + WeightCoverage·Coverage + WeightProximity·Proximity + Boost
	RRFNorm float64 // RRF / the best RRF among the candidates
	Lex     float64 // trigram Dice with the query × query strength
	Rec     float64 // exp(-age_days / RecencyDays)
	grams   ngram.Set
	covered bool // WeightCoverage was set: Reason shows the coverage
	near    bool // WeightProximity was set: Reason shows the proximity
}

// Grams returns the episode's n-grams (EpisodeGrams), shared: do not modify.
func (s Scored) Grams() ngram.Set { return s.grams }

// Reason renders the score parts as the reference does, and the coverage
// and proximity when they were weighed.
func (s Scored) Reason() string {
	r := fmt.Sprintf("heuristic rerank: score=%.3f rrf=%.3f lex=%.3f rec=%.3f", s.Final, s.RRFNorm, s.Lex, s.Rec)
	if s.covered {
		r += fmt.Sprintf(" cov=%.3f", s.Coverage)
	}
	if s.near {
		r += fmt.Sprintf(" prox=%.3f", s.Proximity)
	}
	return r
}

// QueryGrams returns the n-grams of a query text: compacted, its last
// QueryChars code points.
func (o Options) QueryGrams(query string) ngram.Set {
	return ngram.New(pytext.Tail(pytext.Compact(query), o.QueryChars), o.NgramSize)
}

// EpisodeGrams returns the n-grams of an episode: user and reply text joined by
// a newline, compacted, its first EpisodeChars code points.
func (o Options) EpisodeGrams(userText, replyText string) ngram.Set {
	return ngram.New(pytext.Head(pytext.Compact(userText+"\n"+replyText), o.EpisodeChars), o.NgramSize)
}

// Score scores every candidate against the query n-grams q at time now and
// returns them sorted by Final, descending; ties keep the candidates' order.
func Score(q ngram.Set, cands []Candidate, now time.Time, o Options) []Scored {
	out := make([]Scored, len(cands))
	maxRRF := 0.0
	for i, c := range cands {
		if i == 0 || c.RRF > maxRRF {
			maxRRF = c.RRF
		}
	}
	if maxRRF <= 0 {
		maxRRF = 1
	}
	strength := 0.0
	if o.StrengthNgrams > 0 {
		strength = min(1, float64(q.Len())/float64(o.StrengthNgrams))
	}
	nowUnix := float64(now.Unix())
	for i, c := range cands {
		s := Scored{Candidate: c, grams: c.Grams, covered: o.WeightCoverage != 0, near: o.WeightProximity != 0}
		if s.grams == nil {
			s.grams = o.EpisodeGrams(c.UserText, c.ReplyText)
		}
		s.RRFNorm = c.RRF / maxRRF
		s.Lex = ngram.Dice(q, s.grams) * strength
		if at := c.OccurredAt.Unix(); at > 0 && o.RecencyDays > 0 {
			age := max(0, (nowUnix-float64(at))/86400)
			s.Rec = math.Exp(-age / o.RecencyDays)
		}
		s.Final = o.WeightRRF*s.RRFNorm + o.WeightLex*s.Lex + o.WeightRecency*s.Rec + o.WeightCoverage*c.Coverage + o.WeightProximity*c.Proximity
		if c.Boost != 0 {
			s.Final += c.Boost
		}
		out[i] = s
	}
	slices.SortStableFunc(out, func(a, b Scored) int {
		switch {
		case a.Final > b.Final:
			return -1
		case a.Final < b.Final:
			return 1
		}
		return 0
	})
	return out
}

// Pick is a selected candidate; the first pick is High, the rest Medium.
type Pick struct {
	Scored
	High bool
}

// Select walks the scored list: it stops at MaxResults picks, skips a
// candidate whose Final is below Medium, and skips one whose n-gram Dice with
// an earlier pick is at least DedupeDice. When nothing is picked or the first
// pick is below High, it returns nothing.
func Select(scored []Scored, o Options) []Pick {
	var picks []Pick
	for _, s := range scored {
		if len(picks) >= o.MaxResults {
			break
		}
		if s.Final < o.Medium {
			continue
		}
		if slices.ContainsFunc(picks, func(p Pick) bool {
			return p.grams.Len() > 0 && s.grams.Len() > 0 && ngram.Dice(p.grams, s.grams) >= o.DedupeDice
		}) {
			continue
		}
		picks = append(picks, Pick{Scored: s, High: len(picks) == 0})
	}
	if len(picks) == 0 || picks[0].Final < o.High {
		return nil
	}
	return picks
}
