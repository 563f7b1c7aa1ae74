package rerank

import "fmt"

// Gate decides whether a retrieval has evidence at all, on signals measured
// against the message alone, not against the other candidates, so that
// "nothing relevant" can be said: one of the first Depth candidates must have
// a Coverage of at least MinCoverage, or a Cosine of at least MinCosine, or
// lie inside the time window the message names ("4日前に話した課題" asks for
// that day, whatever its words); otherwise nothing is injected. A zero
// threshold tests nothing, and with both zero the thresholds admit every
// retrieval; a zero Depth looks at every candidate.
//
// Coverage does not depend on the embedder; cosine thresholds do, so
// MinCosine must be re-tuned (cmd/bench tune) for another embedder.
//
// With UnknownNames, a message that names something none of the person's
// episodes has ever held (a proper noun: "What did Caroline research?" asked
// of a memory without a Caroline) injects nothing, whatever the candidates
// cover: the memory cannot be about it, and the words around a name
// ("research", "camping") are what every memory shares. The caller looks the
// names up (tokenize.NameFinder, sqlite.Store.Holds).
type Gate struct {
	MinCoverage  float64
	MinCosine    float64
	Depth        int
	UnknownNames bool
}

func (g Gate) thresholds() bool { return g.MinCoverage > 0 || g.MinCosine > 0 }

// admits reports whether a candidate is evidence on its own.
func (g Gate) admits(p Parts) bool {
	return (g.MinCoverage > 0 && p.Coverage >= g.MinCoverage) || (g.MinCosine > 0 && p.Cosine >= g.MinCosine) || p.InWindow
}

// Decline returns why the gate declines a retrieval whose ranked candidates
// are scored and whose message names unknownNames that the memory never
// held, or "" when it admits it (or there is nothing to decline).
func (g Gate) Decline(scored []Scored, unknownNames []string) string {
	if len(scored) == 0 {
		return ""
	}
	if g.UnknownNames && len(unknownNames) > 0 {
		return fmt.Sprintf("the memory holds no %q", unknownNames)
	}
	if !g.thresholds() {
		return ""
	}
	depth := len(scored)
	if g.Depth > 0 {
		depth = min(depth, g.Depth)
	}
	for _, s := range scored[:depth] {
		if g.admits(s.Parts) {
			return ""
		}
	}
	return fmt.Sprintf("no candidate of the first %d has coverage %.2f or cosine %.2f, or is inside the message's time window", depth, g.MinCoverage, g.MinCosine)
}
