package rerank

import (
	"slices"
	"time"
)

// Neighbors raise the candidates next to a strong match. A conversation
// stays on a topic for a few exchanges, so the person's episode just before
// or after one of the first candidates (an anchor) is better evidence than
// its own score says, and a question and its answer often fall in two
// episodes of which only one shares the message's words.
type Neighbors struct {
	// Share raises a candidate next to an anchor to at least this share of
	// the anchor's Final; 0 turns the neighbours off.
	Share float64
	// Fetch: the neighbours of the first Fetch anchors join the candidates
	// even when no search found them (the caller reads them); 0 adds none.
	Fetch int
	// Gap: an episode further than this in time from the anchor is another
	// conversation, neither raised nor added; 0 bounds nothing.
	Gap time.Duration
}

// Wanted is a neighbour to add that is not a candidate: the caller reads and
// scores it (Candidate.Added) and hands it to Add.
type Wanted struct {
	ID     int64
	Floor  float64   // the least Final it is raised to
	Anchor time.Time // when its anchor happened, for Gap
}

// Anchors returns how many of the first candidates are anchors: the first
// maxResults (at least one), as many as there are.
func (nb Neighbors) Anchors(scored []Scored, maxResults int) int {
	return min(len(scored), max(1, maxResults))
}

// near reports whether two times are within Gap (any, when Gap is 0).
func (nb Neighbors) near(a, b time.Time) bool {
	d := a.Sub(b)
	return nb.Gap <= 0 || (d <= nb.Gap && d >= -nb.Gap)
}

// Raise raises, in place, each candidate that is a neighbour of an anchor,
// within Gap of it, and not an anchor itself, to Share of the anchor's Final.
// adj[i] are the ids of the person's episodes just before and after anchor i,
// scored[i] (0: none); len(adj) is the number of anchors. It returns the
// neighbours of the first Fetch anchors that are not candidates, for Add. It
// does not sort: Add does.
func (nb Neighbors) Raise(scored []Scored, adj [][2]int64) []Wanted {
	if nb.Share <= 0 {
		return nil
	}
	n := len(adj)
	var want []Wanted
	for i, pair := range adj {
		floor := nb.Share * scored[i].Final
		for _, id := range pair {
			if id == 0 {
				continue
			}
			j := slices.IndexFunc(scored, func(s Scored) bool { return s.ID == id })
			switch {
			case j >= n && scored[j].Final < floor && nb.near(scored[j].OccurredAt, scored[i].OccurredAt):
				scored[j].Final = floor
				scored[j].Raised = true
			case j < 0 && i < nb.Fetch:
				if k := slices.IndexFunc(want, func(w Wanted) bool { return w.ID == id }); k >= 0 {
					want[k].Floor = max(want[k].Floor, floor)
				} else {
					want = append(want, Wanted{ID: id, Floor: floor, Anchor: scored[i].OccurredAt})
				}
			}
		}
	}
	return want
}

// Add appends the fetched neighbours that Raise wanted and that lie within
// Gap of their anchor, each raised to at least its floor, and sorts all by
// Final (ties keep their order). fetched are the wanted episodes that still
// exist and pass the search's filters, scored by Score in the order of want.
func (nb Neighbors) Add(scored []Scored, want []Wanted, fetched []Scored) []Scored {
	for _, f := range fetched {
		k := slices.IndexFunc(want, func(w Wanted) bool { return w.ID == f.ID })
		if k < 0 || !nb.near(f.OccurredAt, want[k].Anchor) {
			continue
		}
		f.Final = max(f.Final, want[k].Floor)
		f.Added, f.Raised = true, true
		scored = append(scored, f)
	}
	sortByFinal(scored)
	return scored
}
