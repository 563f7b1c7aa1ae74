// Package rrf fuses ranked lists with Reciprocal Rank Fusion: every list adds
// 1/(k + rank) to each id it holds, rank starting at 1.
package rrf

import "slices"

// DefaultK is the RRF smoothing constant of the reference design.
const DefaultK = 60

// Scored is an id with its fused score.
type Scored struct {
	ID    int64
	Score float64
}

// Fuse fuses lists, in the order given, into one ranking by descending score.
// Ties keep the order in which ids were first seen (list by list, rank by
// rank), as the reference's insertion-ordered dict and stable sort do. At most
// limit results are kept (limit <= 0: all). k <= 0 means DefaultK.
//
// Fuse uses a slice and a linear search rather than a map: the lists of the
// pipeline hold a few dozen ids, where that is faster and allocates once.
func Fuse(k, limit int, lists ...[]int64) []Scored {
	return FuseWeighted(k, limit, nil, lists...)
}

// FuseWeighted is Fuse with a weight per list: list i adds
// weights[i]/(k + rank). A missing weight (weights shorter than lists, or
// nil) is 1; a list of weight 0 adds nothing and brings no new ids.
func FuseWeighted(k, limit int, weights []float64, lists ...[]int64) []Scored {
	if k <= 0 {
		k = DefaultK
	}
	total := 0
	for _, l := range lists {
		total += len(l)
	}
	out := make([]Scored, 0, total)
	for li, l := range lists {
		w := 1.0
		if li < len(weights) {
			w = weights[li]
		}
		if w == 0 {
			continue
		}
		for i, id := range l {
			add := w / float64(k+i+1)
			j := slices.IndexFunc(out, func(s Scored) bool { return s.ID == id })
			if j < 0 {
				out = append(out, Scored{ID: id, Score: add})
				continue
			}
			out[j].Score += add
		}
	}
	slices.SortStableFunc(out, func(a, b Scored) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
