package rerank

import "math"

// Signals are what a retrieval measured of the message itself, for the
// features of its candidates: the same for every candidate of one retrieval.
type Signals struct {
	// Strength is the message's lexical strength: its unique n-grams over
	// Ngrams.FullStrength, at most 1 (a short message weighs less).
	Strength float64
	// Terms is the number of the message's distinct terms.
	Terms int
	// UnknownNames is the number of names in the message that none of the
	// person's episodes holds.
	UnknownNames int
	// Kana, Han, Hangul and Latin are the shares of the message's letters
	// in each script (lang.Shares, the classifier tokenize and timeexpr
	// ask too): its language, roughly.
	Kana, Han, Hangul, Latin float64
	// Cue: the message asks the companion to remember (smalltalk.CueWord:
	// 覚えてる, っけ, last time, 上次, 저번에), as most messages that want a
	// memory do and most small talk does not.
	Cue bool
}

// FeatureNames name the features of a candidate, in the order Features
// writes them.
var FeatureNames = []string{
	"rank", "final", "gap", "ratio", "rrf_norm", "lex", "lex_message", "coverage", "proximity", "cosine",
	"in_window", "neighbor", "top_coverage", "coverage_gap",
	"strength", "terms", "unknown_names",
	"kana", "han", "hangul", "latin",
	"lacking",
	"meaning", "meaning_gap",
	"cos_rank", "cos_gap", "cos_z", "cos_alone", "bridge",
	"user_coverage", "context_coverage", "alone", "newer", "names", "rarity",
	"cue",
}

// NumFeatures is len(FeatureNames).
const NumFeatures = 36

// topDepth is how many of the first candidates top_coverage looks at: the
// gate's depth.
const topDepth = DefaultGateDepth

// Features writes the features of scored[i], a candidate of a ranked list
// (Score, then Neighbors), into dst (grown to NumFeatures) and returns it:
// its rank and score relative to the first, its score parts, whether a
// neighbour raised it, the best coverage among the first candidates, the
// message's signals, and how informative the most informative message term
// it lacks is (Parts.Lacking: a look-alike lacks the one word that
// matters), and its learned meaning's cosine with the message's, alone and
// below the best of the first candidates' (0 without Options.Meaning), how
// its cosine stands among the candidates' (cosineStanding; where it matches
// no term of the message, cos_alone) and what the thesaurus says of its
// best bridge to the message (Parts.Bridge), its coverage by the user text
// alone and of the recent turns, whether it alone holds a message word and
// whether a newer candidate shares its words, the message's names it
// holds and how rare the rarest message word it holds is (Parts), and
// whether the message asks to remember (Signals.Cue). The features say how good a candidate is on its own and against
// the others; a model of P(relevant | features) is fitted on them (cmd/bench
// train). Left out on purpose: recency (a model learns the
// suites' clocks and hides old memories again), the store's IDF mass (it
// grows with the store) and whether a conversation preceded (it names a
// suite more than it says anything of relevance): docs/quality.md.
func Features(scored []Scored, i int, s Signals, dst []float64) []float64 {
	dst = append(dst[:0], make([]float64, NumFeatures)...)
	c := scored[i]
	first := scored[0].Final
	top, topMeaning := 0.0, 0.0
	for _, o := range scored[:min(len(scored), topDepth)] {
		top, topMeaning = max(top, o.Coverage), max(topMeaning, o.Meaning)
	}
	ratio := 0.0
	if first > 0 {
		ratio = c.Final / first
	}
	f := dst
	f[0], f[1], f[2], f[3] = float64(i), c.Final, first-c.Final, ratio
	f[4], f[5], f[6] = c.RRFNorm, c.Lex, c.LexMessage
	f[7], f[8], f[9] = c.Coverage, c.Proximity, c.Cosine
	f[10], f[11] = bit(c.InWindow), bit(c.Raised)
	f[12], f[13] = top, top-c.Coverage
	f[14], f[15], f[16] = s.Strength, float64(s.Terms), float64(s.UnknownNames)
	f[17], f[18], f[19], f[20] = s.Kana, s.Han, s.Hangul, s.Latin
	f[21] = c.Lacking
	f[22], f[23] = c.Meaning, topMeaning-c.Meaning
	f[24], f[25], f[26] = cosineStanding(scored, i)
	if c.Coverage == 0 {
		f[27] = f[26]
	}
	f[28] = float64(c.Bridge)
	f[29], f[30], f[31], f[32], f[33], f[34] = c.UserCoverage, c.ContextCoverage, c.Alone, c.Newer, c.Names, c.Rarity
	f[35] = bit(s.Cue)
	return dst
}

// cosineStanding says how the cosine of scored[i] stands among the
// candidates the message's vector search found (Cosine > 0), in terms that
// mean the same for any embedder but the gap: its rank by cosine (0 the
// first; len(scored) when the search did not find it), its cosine less the
// best of the others' (above 0 when it is first: by how much), and its
// z-score among them (0 with fewer than three).
func cosineStanding(scored []Scored, i int) (rank, gap, z float64) {
	c := scored[i].Cosine
	if c <= 0 {
		return float64(len(scored)), 0, 0
	}
	best, n, sum, sq := math.Inf(-1), 0, 0.0, 0.0
	for j, o := range scored {
		if o.Cosine <= 0 {
			continue
		}
		n++
		sum, sq = sum+o.Cosine, sq+o.Cosine*o.Cosine
		if j != i {
			best = max(best, o.Cosine)
			if o.Cosine > c || (o.Cosine == c && j < i) {
				rank++
			}
		}
	}
	if n > 1 {
		gap = c - best
	}
	if n >= 3 {
		mean := sum / float64(n)
		if sd := math.Sqrt(max(0, sq/float64(n)-mean*mean)); sd > 1e-9 {
			z = (c - mean) / sd
		}
	}
	return rank, gap, z
}

func bit(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// scaleFeatures are the features an embedder's scale sets: its raw cosine
// and the cosine's lead over the others'.
var scaleFeatures = []int{9, 25}

// WithoutScale zeroes the features an embedder's scale sets in x, a row of
// Features, keeping where its cosine stands among the candidates (its rank
// and z-score), and returns it: the rows of the semantic model, which
// decides for any semantic embedder (DefaultSemanticModel).
func WithoutScale(x []float64) []float64 {
	for _, i := range scaleFeatures {
		x[i] = 0
	}
	return x
}

// vectorFeatures are the features an embedder sets: the cosine of the
// message and the candidate, and its standing among the candidates'.
var vectorFeatures = []int{9, 24, 25, 26, 27}

// WithoutVectors zeroes the features an embedder's scale sets (cosine) in
// x, a row of Features, and returns it: the rows of the embedder-free model,
// which never splits on them (DefaultLexicalModel).
func WithoutVectors(x []float64) []float64 {
	for _, i := range vectorFeatures {
		x[i] = 0
	}
	return x
}
