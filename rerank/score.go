package rerank

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/omoide/omoide/internal/pytext"
	"github.com/omoide/omoide/ngram"
	"github.com/omoide/omoide/thesaurus"
)

// Parts are a candidate's evidence: what its score is made of, and what the
// gate tests.
type Parts struct {
	RRF     float64 // the fused score (0 for a neighbour no search found)
	RRFNorm float64 // RRF / the best RRF among the candidates
	Lex     float64 // trigram Dice with the query × the query's strength
	Rec     float64 // exp(-age_days / RecencyDays)
	// Coverage is the share of the message's terms the episode holds, in
	// [0, 1], as the caller measures it (the retriever: by IDF weight).
	Coverage float64
	// Proximity is the share of the message's adjacent term pairs the
	// episode holds close together and in order, in [0, 1].
	Proximity float64
	// Lacking is how informative the most informative message term the
	// episode lacks is: its weight over the largest of the message's, in
	// [0, 1] (the retriever: by IDF). A look-alike that shares a sentence's
	// frame but not its content word (ギターを弾いている / ピアノを弾いている)
	// covers much and lacks the word that matters. The relevance model reads
	// it; the score does not.
	Lacking float64
	// InWindow: the episode happened inside the time window the message
	// names ("先週", "in May").
	InWindow bool
	// Cosine is the cosine similarity to the message alone when the
	// message's vector search found the episode, else 0. The gate may test
	// it; the score does not use it.
	Cosine float64
	// LexMessage is the trigram Dice of the message alone (no context)
	// with the episode, when Score is given the message's n-grams. Reported
	// only.
	LexMessage float64
	// Meaning is the cosine of the episode's terms' learned vector with the
	// message's (retriever.Options.Meaning), in [-1, 1]; 0 when nothing
	// measures it.
	Meaning float64
	// Bridge is the strongest relation package thesaurus knows between a
	// word of the message and a different word of the episode (equivalent,
	// a kind of, a sibling); None when nothing measures it
	// (retriever.Options.Bridges). The relevance model reads it; the score
	// does not.
	Bridge thesaurus.Relation
	// UserCoverage is Coverage counting only the terms of the episode's
	// user text: what the person said, not the companion's reply.
	UserCoverage float64
	// ContextCoverage is the share of the recent turns' terms (those not in
	// the message) the episode holds, weighed as Coverage: what a message
	// that leans on the conversation ("やっぱりそっちにした") is about.
	ContextCoverage float64
	// Alone is how informative the most informative message content term
	// is that this candidate alone of the candidates holds, over the
	// largest weight of the message's content terms, in [0, 1]: the one
	// memory holding the message's rarest word (三鷹) is what it follows up.
	Alone float64
	// Newer is the most of its held message content terms (by weight) that
	// one newer candidate holds too, in [0, 1]: a later memory of the same
	// topic, whose state may have replaced this one's.
	Newer float64
	// Names is the share (by weight) of the names the message gives
	// (tokenize.NameFinder: "Emma") that the episode holds; 0 when the
	// message gives none.
	Names float64
	// Rarity is how rare the rarest message content term the episode
	// holds is in the store: its IDF over that of a term two episodes
	// hold, at most 1. A match on "day" or 今日 is a match on what every
	// memory says; on 三鷹, on what one does.
	Rarity float64
}

// Final returns the score of parts under w:
// RRF·RRFNorm + Lex·Lex + Recency·Rec + Coverage·Coverage + Proximity·Proximity
// + Meaning·Meaning, plus Window when the candidate is inside the message's
// time window.
func (w Weights) Final(p Parts) float64 {
	f := 0.0
	for _, c := range w.Contributions(p) {
		f += c.Value
	}
	return f
}

// Contribution is one part's share of a score: its weight times its value.
type Contribution struct {
	Part  string // "rrf", "lex", "rec", "coverage", "proximity", "meaning", "window": Weights' JSON names
	Value float64
}

// Contributions returns each part's share of Final(p), in the order Final
// adds them: what the inspector draws as a stacked bar.
func (w Weights) Contributions(p Parts) [7]Contribution {
	win := 0.0
	if p.InWindow {
		win = w.Window
	}
	return [7]Contribution{{"rrf", w.RRF * p.RRFNorm}, {"lex", w.Lex * p.Lex}, {"rec", w.Recency * p.Rec},
		{"coverage", w.Coverage * p.Coverage}, {"proximity", w.Proximity * p.Proximity}, {"meaning", w.Meaning * p.Meaning},
		{"window", win}}
}

// Candidate is one candidate to score: its episode's texts and time, and the
// evidence the caller measured (Parts' RRF, Coverage, Proximity, InWindow and
// Cosine); Score computes the other parts.
type Candidate struct {
	ID         int64
	UserText   string
	ReplyText  string
	OccurredAt time.Time // the zero time (or before 1970) has no recency
	// Grams are the episode's n-grams (Ngrams.Episode) when the caller has
	// them already; nil means Score computes them.
	Grams ngram.Set
	Parts
	// Added: a neighbour no search found (Neighbors.Fetch).
	Added bool
	// Held has bit j set when the episode holds the message's content term
	// j, in the caller's numbering (the retriever's: its first 64), for
	// Parts.Alone and Parts.Newer.
	Held uint64
}

// Scored is a scored candidate.
type Scored struct {
	Candidate
	Final float64 // Weights.Final of the parts, or the floor Neighbors raised it to
	// Order is the candidate's position in the list given to Score: the
	// fusion's order, which breaks ties of Final.
	Order  int
	Raised bool // Neighbors raised or added it
	// covered and near: the score weighs coverage and proximity, and Reason
	// shows them.
	covered, near, meant bool
}

// Reason renders the score parts as the reference does, and the coverage
// and proximity when they were weighed, and says when the candidate was
// raised for being next to a stronger match.
func (s Scored) Reason() string {
	r := fmt.Sprintf("heuristic rerank: score=%.3f rrf=%.3f lex=%.3f rec=%.3f", s.Final, s.RRFNorm, s.Lex, s.Rec)
	if s.covered {
		r += fmt.Sprintf(" cov=%.3f", s.Coverage)
	}
	if s.near {
		r += fmt.Sprintf(" prox=%.3f", s.Proximity)
	}
	if s.meant {
		r += fmt.Sprintf(" meaning=%.3f", s.Meaning)
	}
	if s.Raised {
		r += " (raised: next to a stronger match)"
	}
	return r
}

// Query is what the candidates are compared with.
type Query struct {
	Grams ngram.Set // the query's n-grams (Ngrams.Query of the rerank text)
	// Message is the message's own n-grams, for Parts.LexMessage; nil
	// leaves it 0.
	Message ngram.Set
}

// Query returns the n-grams of a query text: compacted, its last QueryChars
// code points.
func (n Ngrams) Query(text string) ngram.Set {
	s := pytext.Compact(text)
	if n.QueryChars > 0 {
		s = pytext.Tail(s, n.QueryChars)
	}
	return ngram.New(s, n.Size)
}

// Episode returns the n-grams of an episode: user and reply text joined by a
// newline, compacted, its first EpisodeChars code points.
func (n Ngrams) Episode(userText, replyText string) ngram.Set {
	s := pytext.Compact(userText + "\n" + replyText)
	if n.EpisodeChars > 0 {
		s = pytext.Head(s, n.EpisodeChars)
	}
	return ngram.New(s, n.Size)
}

// Strength is the weight of a query's overlap: its unique n-grams over
// FullStrength, at most 1.
func (n Ngrams) Strength(q ngram.Set) float64 {
	if n.FullStrength <= 0 {
		return 1
	}
	return min(1, float64(q.Len())/float64(n.FullStrength))
}

// Score scores every candidate against q at time now and returns them sorted
// by Final, descending; ties keep the candidates' order.
func Score(q Query, cands []Candidate, now time.Time, o Options) []Scored {
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
	strength := o.Ngrams.Strength(q.Grams)
	nowUnix := float64(now.Unix())
	for i, c := range cands {
		s := Scored{Candidate: c, Order: i}
		if s.Grams == nil {
			s.Grams = o.Ngrams.Episode(c.UserText, c.ReplyText)
		}
		s.RRFNorm = c.RRF / maxRRF
		s.Lex = ngram.Dice(q.Grams, s.Grams) * strength
		if q.Message != nil {
			s.LexMessage = ngram.Dice(q.Message, s.Grams)
		}
		if at := c.OccurredAt.Unix(); at > 0 && o.RecencyDays > 0 {
			age := max(0, (nowUnix-float64(at))/86400)
			s.Rec = math.Exp(-age / o.RecencyDays)
		}
		out[i] = s
	}
	finalize(out, o.Weights)
	return out
}

// Rescore recomputes the Final of scored candidates from their parts under
// w, undoing any raise, and sorts them as Score does: by Final, descending,
// ties in the order Score was given them. cmd/bench replays retrievals under
// other weights with it. scored is reordered in place and returned.
func Rescore(scored []Scored, w Weights) []Scored {
	slices.SortFunc(scored, func(a, b Scored) int { return cmp.Compare(a.Order, b.Order) })
	finalize(scored, w)
	return scored
}

// finalize sets each Final from the parts under w and sorts by it.
func finalize(scored []Scored, w Weights) {
	for i := range scored {
		s := &scored[i]
		s.Final = w.Final(s.Parts)
		s.Raised = false
		s.covered, s.near, s.meant = w.Coverage != 0, w.Proximity != 0, w.Meaning != 0
	}
	sortByFinal(scored)
}

// sortByFinal sorts by Final, descending; ties keep their order.
func sortByFinal(scored []Scored) {
	slices.SortStableFunc(scored, func(a, b Scored) int { return cmp.Compare(b.Final, a.Final) })
}
